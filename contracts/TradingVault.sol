// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IERC20Metadata} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Metadata.sol";
import {IERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Permit.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {SafeCast} from "@openzeppelin/contracts/utils/math/SafeCast.sol";
import "./VaultTypes.sol";

interface IVaultOperator {
    function operator() external view returns (address);
}

/// @title One investor/trader deal: risk limits fed by the factory's oracle, close, settlement escrow.
/// @notice Deployed once as an implementation; each vault is an EIP-1167 clone of it made by the
/// factory. The factory and the settlement token are immutables of the implementation, so every
/// clone shares them without a storage read.
contract TradingVault is ReentrancyGuard {
    using SafeERC20 for IERC20;

    uint256 private constant BPS = 10_000;
    /// @dev A reading stamped further in the future than this is a clock or unit bug (e.g. ms):
    /// accepting it would make every later, correct reading look stale and blind the vault.
    uint256 private constant MAX_CLOCK_SKEW = 5 minutes;
    uint8 private constant BREACH_MAX = 1;
    uint8 private constant BREACH_DAILY = 2;
    /// @dev Bits the contract sets itself on a breach; an operator pause may use none of them.
    uint8 private constant BREACH_BITS = BREACH_MAX | BREACH_DAILY;

    address private immutable FACTORY;
    IERC20 private immutable TOKEN;

    /// @dev Written by every balance update: one slot.
    struct Reading {
        uint80 balance;
        uint80 peak;
        uint48 observedAt;
        uint48 updatedAt;
    }

    /// @dev Read by every update, written only on a new UTC day or a pause change: one slot.
    struct Risk {
        uint80 dayStart;
        uint32 day;
        uint16 maxDrawdownBps;
        uint16 dailyDrawdownBps;
        bool paused;
        bool closed;
    }

    /// @dev The terms, fixed at initialize: three slots (salt and terms hash live beside them).
    struct Deal {
        address investor;
        uint48 dealDeadline;
        uint16 traderShareBps;
        // Not read by balance updates, so it lives here rather than in Risk (which every update reads).
        uint8 breachPolicy;
        address trader;
        uint80 initialBalance;
        address exchangeAccount;
        uint48 validUntil;
    }

    /// @dev Frozen at close, then the pull-payment ledger.
    struct Settlement {
        uint80 finalBalance;
        uint80 traderShare;
        uint48 closedAt;
        uint128 traderPaid;
        uint128 investorPaid;
    }

    Reading private _reading;
    Risk private _risk;
    Deal private _deal;
    bytes32 private _salt;
    bytes32 private _termsHash;
    Settlement private _settlement;

    event BalanceUpdated(
        uint256 balance,
        uint256 peakBalance,
        uint256 dayStartBalance,
        uint64 observedAt,
        uint16 drawdownBps,
        uint16 dailyDrawdownBps
    );
    /// @param reason bit 1: max drawdown breached, bit 2: daily drawdown breached; 4 and up: the
    /// operator's (4: the exchange account's mode changed and the daemon cannot value it as before).
    event Paused(uint8 reason);
    event Unpaused(address indexed by);
    event Closed(address indexed by, uint256 finalBalance, int256 profit, uint256 traderShare, int256 investorShare);
    event Funded(address indexed from, uint256 amount);
    event Withdrawn(address indexed party, uint256 amount);

    modifier onlyFactory() {
        if (msg.sender != FACTORY) revert NotAuthorized();
        _;
    }

    constructor(address factory_, address settlementToken_) {
        if (factory_ == address(0)) revert ZeroAddress();
        if (settlementToken_.code.length == 0) revert InvalidSettlementToken();
        // Balances come from the exchange in USDC base units and the shares are paid from the escrow in
        // token base units: both must be the same unit.
        if (IERC20Metadata(settlementToken_).decimals() != 6) revert InvalidSettlementToken();
        FACTORY = factory_;
        TOKEN = IERC20(settlementToken_);
        // The implementation itself is never a vault: mark it closed so no call can change it.
        _risk.closed = true;
    }

    // ---------------------------------------------------------------- factory-only

    /// @notice Stores the terms; peak and day start begin at the initial balance. The first reading
    /// then becomes the day start, while the peak never drops below the initial balance: a first
    /// reading under it counts against the max drawdown, since that is capital the investor committed.
    /// Range checks were done by the factory, which is the only caller.
    function initialize(VaultTerms calldata t, bytes32 termsHash_) external onlyFactory {
        if (_deal.investor != address(0)) revert AlreadyInitialized();
        uint80 initial = uint80(t.initialBalance);
        _reading = Reading(initial, initial, 0, 0);
        _risk = Risk(initial, uint32(block.timestamp / 1 days), t.maxDrawdownBps, t.dailyDrawdownBps, false, false);
        _deal = Deal(
            t.investor, uint48(t.dealDeadline), t.traderShareBps, t.breachPolicy,
            t.trader, initial,
            t.exchangeAccount, uint48(t.validUntil)
        );
        _salt = t.salt;
        _termsHash = termsHash_;
    }

    /// @notice Records an oracle reading. Never reverts for a closed vault or a reading that is not
    /// newer than the stored one (or implausible): it returns false and changes nothing, so one such
    /// vault cannot sink the factory's batch.
    function updateBalance(uint256 balance, uint64 observedAt) external onlyFactory returns (bool applied) {
        Risk memory risk = _risk;
        Reading memory reading = _reading;
        if (
            risk.closed || observedAt <= reading.observedAt || observedAt > block.timestamp + MAX_CLOCK_SKEW
                || balance > type(uint80).max
        ) return false;

        bool riskChanged;
        uint32 today = uint32(block.timestamp / 1 days);
        // The first reading (none stored yet: observedAt is still 0) starts its day like the first
        // reading of any later day. initialBalance is only what the parties signed; measuring day one
        // from it would let an account that starts above it lose more than the daily limit unpaused.
        if (today != risk.day || reading.observedAt == 0) {
            risk.day = today;
            risk.dayStart = uint80(balance);
            riskChanged = true;
        }
        reading.balance = uint80(balance);
        if (reading.balance > reading.peak) reading.peak = reading.balance;
        reading.observedAt = uint48(observedAt);
        reading.updatedAt = uint48(block.timestamp);

        (uint256 drawdownBps, uint256 dailyBps, uint8 breaches) = _measure(reading, risk);
        bool pausing = breaches != 0 && !risk.paused;
        if (pausing) {
            risk.paused = true;
            riskChanged = true;
        }
        _reading = reading;
        if (riskChanged) _risk = risk;
        emit BalanceUpdated(balance, reading.peak, risk.dayStart, observedAt, uint16(drawdownBps), uint16(dailyBps));
        if (pausing) emit Paused(breaches);
        return true;
    }

    /// @notice Pauses the vault for a reason the contract cannot see (the exchange account changed
    /// mode, so its balance no longer means what the terms assumed). Operator only. Lifting it takes
    /// unpause(), whose rule is unchanged: no limit breached at the stored balance. A vault already
    /// paused stays as it is (no event), so a retried call cannot fail.
    function pause(uint8 reason) external {
        if (msg.sender != _operator()) revert NotAuthorized();
        if (reason == 0 || reason & BREACH_BITS != 0) revert InvalidPauseReason(reason);
        Risk memory risk = _risk;
        if (risk.closed) revert VaultClosed();
        if (risk.paused) return;
        _risk.paused = true;
        emit Paused(reason);
    }

    // ---------------------------------------------------------------- parties

    /// @notice Lifts an automatic pause once neither limit is breached at the stored balance. The
    /// trader, or the operator relaying for the trader.
    function unpause() external {
        if (msg.sender != _deal.trader && msg.sender != _operator()) revert NotAuthorized();
        Risk memory risk = _risk;
        if (risk.closed) revert VaultClosed();
        if (!risk.paused) revert NotPaused();
        (,, uint8 breaches) = _measure(_reading, risk);
        if (breaches != 0) revert NotRecovered(breaches);
        _risk.paused = false;
        emit Unpaused(msg.sender);
    }

    /// @notice Ends the deal at the stored balance. Investor, trader or operator; anyone once
    /// block.timestamp > dealDeadline.
    function close() external returns (uint256 finalBalance, int256 profit, uint256 traderShare) {
        if (
            block.timestamp <= _deal.dealDeadline && msg.sender != _deal.investor && msg.sender != _deal.trader
                && msg.sender != _operator()
        ) revert NotAuthorized();
        if (_risk.closed) revert VaultClosed();

        finalBalance = _reading.balance;
        profit = int256(finalBalance) - int256(uint256(_deal.initialBalance));
        // Rounded down, so the trader never gets more than its exact share.
        traderShare = profit > 0 ? uint256(profit) * _deal.traderShareBps / BPS : 0;
        _risk.closed = true;
        _settlement.finalBalance = uint80(finalBalance);
        _settlement.traderShare = uint80(traderShare);
        _settlement.closedAt = uint48(block.timestamp);
        emit Closed(msg.sender, finalBalance, profit, traderShare, profit - int256(traderShare));
    }

    /// @notice Pulls `amount` settlement tokens from the caller into the escrow (any time, anyone).
    function fund(uint256 amount) external nonReentrant {
        if (amount == 0) revert InvalidAmount();
        TOKEN.safeTransferFrom(msg.sender, address(this), amount);
        emit Funded(msg.sender, amount);
    }

    /// @notice Pulls `amount` from the investor with an EIP-2612 permit the investor signed for this
    /// vault, so the operator can relay it and the investor pays no gas. Investor or operator only:
    /// otherwise anyone could spend an allowance the investor gave the vault for another purpose.
    function fundWithPermit(uint256 amount, uint256 deadline, uint8 v, bytes32 r, bytes32 s) external nonReentrant {
        address investor = _deal.investor;
        if (msg.sender != investor && msg.sender != _operator()) revert NotAuthorized();
        if (amount == 0) revert InvalidAmount();
        // A permit someone copied from the mempool and submitted first already set the allowance; the
        // transfer below is what must succeed (OpenZeppelin's recommended pattern).
        try IERC20Permit(address(TOKEN)).permit(investor, address(this), amount, deadline, v, r, s) {} catch {}
        TOKEN.safeTransferFrom(investor, address(this), amount);
        emit Funded(investor, amount);
    }

    /// @notice Pays `party` (the investor or the trader) what it may take now, always to that party's
    /// own address. The party itself or the operator relaying for it. The trader's unpaid share comes
    /// first; the investor gets what the escrow holds beyond it.
    function withdraw(address party) external nonReentrant returns (uint256 amount) {
        bool isTrader = party == _deal.trader;
        if (!isTrader && party != _deal.investor) revert InvalidParty(party);
        if (msg.sender != party && msg.sender != _operator()) revert NotAuthorized();
        if (!_risk.closed) revert VaultNotClosed();

        amount = _withdrawable(isTrader);
        if (amount == 0) revert NothingToWithdraw();
        // Effects before the transfer: a re-entered withdraw (also blocked by the guard) sees the debt paid.
        // The trader's amount is below 2**80 (its share); the investor's is only bounded by the escrow.
        if (isTrader) _settlement.traderPaid += uint128(amount);
        else _settlement.investorPaid += SafeCast.toUint128(amount);
        emit Withdrawn(party, amount);
        TOKEN.safeTransfer(party, amount);
    }

    // ---------------------------------------------------------------- views

    function factory() external view returns (address) {
        return FACTORY;
    }

    function settlementToken() external view returns (address) {
        return address(TOKEN);
    }

    function _terms() private view returns (VaultTerms memory t) {
        t = VaultTerms(
            _deal.investor, _deal.trader, _deal.exchangeAccount, _deal.initialBalance,
            _risk.maxDrawdownBps, _risk.dailyDrawdownBps, _deal.dealDeadline, _deal.traderShareBps,
            _deal.breachPolicy, _deal.validUntil, _salt
        );
    }

    /// @notice The whole vault in one call: terms, risk state, settlement.
    function state() external view returns (VaultState memory st) {
        Reading memory reading = _reading;
        Risk memory risk = _risk;
        st.terms = _terms();
        st.termsHash = _termsHash;
        st.balance = reading.balance;
        st.peakBalance = reading.peak;
        st.dayStartBalance = risk.dayStart;
        st.day = risk.day;
        st.observedAt = reading.observedAt;
        st.updatedAt = reading.updatedAt;
        (st.drawdownBps, st.dailyDrawdownBps,) = _measure(reading, risk);
        st.paused = risk.paused;
        st.closed = risk.closed;
        st.closedAt = _settlement.closedAt;
        st.finalBalance = _settlement.finalBalance;
        st.traderShare = _settlement.traderShare;
        if (risk.closed) {
            st.profit = int256(st.finalBalance) - int256(st.terms.initialBalance);
            st.investorShare = st.profit - int256(st.traderShare);
        }
        st.traderPaid = _settlement.traderPaid;
        st.investorPaid = _settlement.investorPaid;
        st.escrow = TOKEN.balanceOf(address(this));
        if (risk.closed) {
            st.traderWithdrawable = _withdrawable(true);
            st.investorWithdrawable = _withdrawable(false);
        }
    }

    // ---------------------------------------------------------------- internals

    function _operator() private view returns (address) {
        return IVaultOperator(FACTORY).operator();
    }

    /// @dev Payouts are capped by what the escrow holds, so no rounding can pay out more than it.
    function _withdrawable(bool isTrader) private view returns (uint256) {
        uint256 escrow = TOKEN.balanceOf(address(this));
        uint256 traderUnpaid = uint256(_settlement.traderShare) - _settlement.traderPaid;
        if (isTrader) return traderUnpaid < escrow ? traderUnpaid : escrow;
        return escrow > traderUnpaid ? escrow - traderUnpaid : 0;
    }

    /// @dev Both drawdowns (rounded down, for reporting) and the breach bits (exact).
    function _measure(Reading memory reading, Risk memory risk)
        private
        pure
        returns (uint256 drawdownBps, uint256 dailyBps, uint8 breaches)
    {
        bool breached;
        (drawdownBps, breached) = _drawdown(reading.peak, reading.balance, risk.maxDrawdownBps);
        if (breached) breaches = BREACH_MAX;
        (dailyBps, breached) = _drawdown(risk.dayStart, reading.balance, risk.dailyDrawdownBps);
        if (breached) breaches |= BREACH_DAILY;
    }

    /// @dev Breached AT the limit: (base - current) * 10000 >= limitBps * base, in exact integers.
    /// No drop (current >= base, which includes base == 0) is never a breach.
    function _drawdown(uint256 base, uint256 current, uint256 limitBps)
        private
        pure
        returns (uint256 bps, bool breached)
    {
        if (current >= base) return (0, false);
        unchecked {
            // current < base < 2**80 and limitBps <= 10000: the subtraction cannot underflow, the
            // products stay below 2**94 and base > 0, so the division is defined.
            uint256 drop = base - current;
            bps = drop * BPS / base;
            breached = drop * BPS >= limitBps * base;
        }
    }
}
