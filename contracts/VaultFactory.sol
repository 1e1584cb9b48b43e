// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

import {Clones} from "@openzeppelin/contracts/proxy/Clones.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {SignatureChecker} from "@openzeppelin/contracts/utils/cryptography/SignatureChecker.sol";
import {TradingVault} from "./TradingVault.sol";
import "./VaultTypes.sol";

/// @title Creates a TradingVault per deal from terms both parties signed, and feeds them the oracle.
/// @notice Vaults are EIP-1167 clones deployed with CREATE2, salt = the terms' EIP-712 digest, so a
/// vault's address follows from (factory, implementation, terms) alone: a rebuilt chain puts every
/// vault back at its old address, and one set of signed terms can never make two vaults.
contract VaultFactory is EIP712 {
    uint256 private constant BPS = 10_000;
    /// @dev pause, reduce-only, flatten (VaultTypes.sol).
    uint8 private constant MAX_BREACH_POLICY = 2;
    /// @dev Which VaultTerms this factory signs and stores: 2 added breachPolicy. The daemon refuses a
    /// factory without it (a chain deployed by an older daemon) rather than sign terms it cannot take.
    uint8 public constant TERMS_VERSION = 2;

    address private immutable IMPLEMENTATION;
    address private immutable TOKEN;
    /// @dev The daemon's key: writes balances, relays party actions, never receives funds.
    address private _operator;

    event VaultCreated(
        address indexed vault, address indexed investor, address indexed trader, bytes32 termsHash, VaultTerms terms
    );
    event OperatorChanged(address indexed previousOperator, address indexed newOperator);

    modifier onlyOperator() {
        if (msg.sender != _operator) revert NotAuthorized();
        _;
    }

    /// @param implementation_ a TradingVault constructed with this factory's (predicted) address; its
    /// settlement token becomes the factory's.
    constructor(address implementation_, address operator_) EIP712("TradeVault", "1") {
        if (operator_ == address(0)) revert ZeroAddress();
        if (implementation_.code.length == 0) revert InvalidImplementation();
        if (TradingVault(implementation_).factory() != address(this)) revert InvalidImplementation();
        IMPLEMENTATION = implementation_;
        TOKEN = TradingVault(implementation_).settlementToken();
        _operator = operator_;
        emit OperatorChanged(address(0), operator_);
    }

    /// @notice Deploys the vault for `terms`. Anyone may send it: the two signatures are the authority.
    function createVault(VaultTerms calldata terms, bytes calldata investorSig, bytes calldata traderSig)
        external
        returns (address vault)
    {
        _validate(terms);
        bytes32 termsHash = _hashTypedDataV4(VaultTermsHash.structHash(terms));
        vault = Clones.predictDeterministicAddress(IMPLEMENTATION, termsHash);
        if (vault.code.length != 0) revert TermsAlreadyUsed(termsHash);
        // SignatureChecker also accepts ERC-1271 contract wallets (a Safe as investor).
        if (!SignatureChecker.isValidSignatureNow(terms.investor, termsHash, investorSig)) {
            revert InvalidSignature(terms.investor);
        }
        if (!SignatureChecker.isValidSignatureNow(terms.trader, termsHash, traderSig)) {
            revert InvalidSignature(terms.trader);
        }
        Clones.cloneDeterministic(IMPLEMENTATION, termsHash);
        TradingVault(vault).initialize(terms, termsHash);
        emit VaultCreated(vault, terms.investor, terms.trader, termsHash, terms);
    }

    /// @notice Writes many oracle readings in one transaction. Entries for closed vaults and readings
    /// not newer than what a vault holds are skipped by the vault (no BalanceUpdated), never reverted.
    function updateBalances(address[] calldata vaults, uint256[] calldata balances, uint64[] calldata observedAt)
        external
        onlyOperator
    {
        uint256 n = vaults.length;
        if (balances.length != n || observedAt.length != n) revert LengthMismatch();
        for (uint256 i; i < n; ++i) {
            TradingVault(vaults[i]).updateBalance(balances[i], observedAt[i]);
        }
    }

    /// @notice Hands the operator role to a new key (key rotation). Operator only.
    function setOperator(address newOperator) external onlyOperator {
        if (newOperator == address(0)) revert ZeroAddress();
        address previous = _operator;
        _operator = newOperator;
        emit OperatorChanged(previous, newOperator);
    }

    // ---------------------------------------------------------------- views

    function operator() external view returns (address) {
        return _operator;
    }

    function implementation() external view returns (address) {
        return IMPLEMENTATION;
    }

    function settlementToken() external view returns (address) {
        return TOKEN;
    }

    /// @notice The EIP-712 digest of `terms` under this factory's domain: the vault's termsHash and salt.
    function hashTerms(VaultTerms calldata terms) external view returns (bytes32) {
        return _hashTypedDataV4(VaultTermsHash.structHash(terms));
    }

    /// @notice The address the vault for `termsHash` has (or will have).
    function predictVaultAddress(bytes32 termsHash) external view returns (address) {
        return Clones.predictDeterministicAddress(IMPLEMENTATION, termsHash);
    }

    // ---------------------------------------------------------------- internals

    function _validate(VaultTerms calldata t) private view {
        if (block.timestamp > t.validUntil) revert TermsExpired();
        if (t.dealDeadline <= block.timestamp) revert DealExpired();
        // Field names match the terms (and daemon/chain/terms.ts termsProblems), so a refusal names
        // the one term to fix.
        if (t.investor == address(0)) revert InvalidTerms("investor");
        if (t.trader == address(0) || t.trader == t.investor) revert InvalidTerms("trader");
        if (t.exchangeAccount == address(0)) revert InvalidTerms("exchangeAccount");
        // The vault keeps balances in 80 bits (1.2e18 USDC): far beyond any real deal.
        if (t.initialBalance == 0 || t.initialBalance > type(uint80).max) revert InvalidTerms("initialBalance");
        if (t.maxDrawdownBps == 0 || t.maxDrawdownBps > BPS) revert InvalidTerms("maxDrawdownBps");
        if (t.dailyDrawdownBps == 0 || t.dailyDrawdownBps > BPS) revert InvalidTerms("dailyDrawdownBps");
        if (t.traderShareBps > BPS) revert InvalidTerms("traderShareBps");
        if (t.breachPolicy > MAX_BREACH_POLICY) revert InvalidTerms("breachPolicy");
        // The vault keeps times in 48 bits.
        if (t.dealDeadline > type(uint48).max) revert InvalidTerms("dealDeadline");
        if (t.validUntil > type(uint48).max) revert InvalidTerms("validUntil");
    }
}
