// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @notice The deal both parties sign as EIP-712 typed data (primary type `VaultTerms`). Balances are
/// settlement-token base units (USDC, 6 decimals); times are unix seconds; shares and limits are
/// basis points (10000 = 100%). `breachPolicy` says what a breach does to the trader's exposure (the
/// daemon enforces it off-chain; the contract stores it so both parties' signatures cover it):
/// 0 pause, 1 reduce-only, 2 flatten.
struct VaultTerms {
    address investor;
    address trader;
    address exchangeAccount;
    uint256 initialBalance;
    uint16 maxDrawdownBps;
    uint16 dailyDrawdownBps;
    uint64 dealDeadline;
    uint16 traderShareBps;
    uint8 breachPolicy;
    uint64 validUntil;
    bytes32 salt;
}

/// @notice Everything the daemon needs about one vault, read in one call (TradingVault.state()).
struct VaultState {
    VaultTerms terms;
    bytes32 termsHash;
    uint256 balance;
    uint256 peakBalance;
    uint256 dayStartBalance;
    uint256 day;
    uint256 observedAt;
    uint256 updatedAt;
    uint256 drawdownBps;
    uint256 dailyDrawdownBps;
    bool paused;
    bool closed;
    uint256 closedAt;
    uint256 finalBalance;
    int256 profit;
    uint256 traderShare;
    int256 investorShare;
    uint256 traderPaid;
    uint256 investorPaid;
    uint256 escrow;
    uint256 traderWithdrawable;
    uint256 investorWithdrawable;
}

library VaultTermsHash {
    bytes32 internal constant TYPEHASH = keccak256(
        "VaultTerms(address investor,address trader,address exchangeAccount,uint256 initialBalance,"
        "uint16 maxDrawdownBps,uint16 dailyDrawdownBps,uint64 dealDeadline,uint16 traderShareBps,"
        "uint8 breachPolicy,uint64 validUntil,bytes32 salt)"
    );

    /// @dev Every member is a static atomic type, so abi.encode lays the struct out exactly as
    /// EIP-712's encodeData wants it: one 32-byte word per member, in declaration order.
    function structHash(VaultTerms calldata terms) internal pure returns (bytes32) {
        return keccak256(abi.encode(TYPEHASH, terms));
    }
}

// Errors shared by the factory and the vaults. The daemon decodes them by name (see
// daemon/chain/chain-errors.ts), so renaming one is an interface change.

/// @notice The caller has no role that allows this call.
error NotAuthorized();
/// @notice `party` is neither the vault's investor nor its trader.
error InvalidParty(address party);
/// @notice The vault is closed; nothing changes its balance any more.
error VaultClosed();
/// @notice Settlement needs a closed vault.
error VaultNotClosed();
/// @notice Unpause of a vault that is not paused.
error NotPaused();
/// @notice A limit is still breached at the stored balance (bit 1: max drawdown, bit 2: daily).
error NotRecovered(uint8 breaches);
/// @notice The deal deadline has already passed.
error DealExpired();
/// @notice The terms are past their validUntil.
error TermsExpired();
/// @notice The signature does not come from `signer` over these terms.
error InvalidSignature(address signer);
/// @notice A vault for these terms exists already.
error TermsAlreadyUsed(bytes32 termsHash);
/// @notice A term is out of range; `field` names it.
error InvalidTerms(string field);
/// @notice The caller's entitlement is zero right now.
error NothingToWithdraw();
/// @notice Zero amount.
error InvalidAmount();
/// @notice The batch arrays differ in length.
error LengthMismatch();
/// @notice The implementation is not a TradingVault bound to this factory.
error InvalidImplementation();
/// @notice The settlement token is not a 6-decimal ERC-20 contract.
error InvalidSettlementToken();
/// @notice The zero address where a real one is needed.
error ZeroAddress();
/// @notice initialize() on a vault that already holds terms.
error AlreadyInitialized();
/// @notice An operator pause must give a reason of its own (bit 4 or higher), never a breach's bits.
error InvalidPauseReason(uint8 reason);
