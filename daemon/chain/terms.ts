// Vault terms and permits as EIP-712 typed data, their hashes, and vault address prediction. Pure
// functions: no provider needed, so the daemon can hand typed data to clients and rebuild addresses
// offline. The type strings must match contracts/VaultTypes.sol and OpenZeppelin's ERC20Permit.
import { Signature, TypedDataEncoder, ZeroAddress, concat, getAddress, getCreate2Address, hexlify, isAddress, keccak256, randomBytes } from "ethers";
import type { TypedDataField } from "ethers";
import { formatDecimal } from "../lib/decimal.js";

/** One deal, as both parties sign it. Balances in settlement-token base units (USDC, 6 decimals). */
export interface VaultTerms {
  investor: string;
  trader: string;
  exchangeAccount: string;
  initialBalance: bigint;
  /** 1..10000 */
  maxDrawdownBps: number;
  /** 1..10000 */
  dailyDrawdownBps: number;
  /** Unix seconds; after it anyone may close. */
  dealDeadline: number;
  /** 0..10000 */
  traderShareBps: number;
  /** What a breach does to the trader's exposure: its code in vaults/breach-policies.ts. */
  breachPolicy: number;
  /** Unix seconds; the terms cannot create a vault after it. */
  validUntil: number;
  /** 0x + 64 hex; makes otherwise equal terms distinct. */
  salt: string;
}

export interface TypedDataDomainJson {
  name: string;
  version: string;
  chainId: number;
  verifyingContract: string;
}

/** Ready for eth_signTypedData_v4: EIP712Domain included, integers as decimal strings. */
export interface TypedDataDocument {
  domain: TypedDataDomainJson;
  types: Record<string, TypedDataField[]>;
  primaryType: string;
  message: Record<string, string>;
}

export const VAULT_DOMAIN_NAME = "TradeVault";
export const VAULT_DOMAIN_VERSION = "1";

const DOMAIN_TYPE: TypedDataField[] = [
  { name: "name", type: "string" },
  { name: "version", type: "string" },
  { name: "chainId", type: "uint256" },
  { name: "verifyingContract", type: "address" },
];

export const VAULT_TERMS_TYPES: Record<string, TypedDataField[]> = {
  VaultTerms: [
    { name: "investor", type: "address" },
    { name: "trader", type: "address" },
    { name: "exchangeAccount", type: "address" },
    { name: "initialBalance", type: "uint256" },
    { name: "maxDrawdownBps", type: "uint16" },
    { name: "dailyDrawdownBps", type: "uint16" },
    { name: "dealDeadline", type: "uint64" },
    { name: "traderShareBps", type: "uint16" },
    { name: "breachPolicy", type: "uint8" },
    { name: "validUntil", type: "uint64" },
    { name: "salt", type: "bytes32" },
  ],
};

export const PERMIT_TYPES: Record<string, TypedDataField[]> = {
  Permit: [
    { name: "owner", type: "address" },
    { name: "spender", type: "address" },
    { name: "value", type: "uint256" },
    { name: "nonce", type: "uint256" },
    { name: "deadline", type: "uint256" },
  ],
};

export function randomSalt(): string {
  return hexlify(randomBytes(32));
}

export function vaultDomain(chainId: number | bigint, factory: string): TypedDataDomainJson {
  return { name: VAULT_DOMAIN_NAME, version: VAULT_DOMAIN_VERSION, chainId: Number(chainId), verifyingContract: getAddress(factory) };
}

/** The message with addresses checksummed and every integer as a decimal string. */
export function vaultTermsMessage(terms: VaultTerms): Record<string, string> {
  return {
    investor: getAddress(terms.investor),
    trader: getAddress(terms.trader),
    exchangeAccount: getAddress(terms.exchangeAccount),
    initialBalance: terms.initialBalance.toString(),
    maxDrawdownBps: String(terms.maxDrawdownBps),
    dailyDrawdownBps: String(terms.dailyDrawdownBps),
    dealDeadline: String(terms.dealDeadline),
    traderShareBps: String(terms.traderShareBps),
    breachPolicy: String(terms.breachPolicy),
    validUntil: String(terms.validUntil),
    salt: hexlify(terms.salt),
  };
}

export interface VaultTermsTypedDataParams {
  chainId: number | bigint;
  factory: string;
  terms: VaultTerms;
}

export function buildVaultTermsTypedData({ chainId, factory, terms }: VaultTermsTypedDataParams): TypedDataDocument {
  return {
    domain: vaultDomain(chainId, factory),
    types: { EIP712Domain: DOMAIN_TYPE, ...VAULT_TERMS_TYPES },
    primaryType: "VaultTerms",
    message: vaultTermsMessage(terms),
  };
}

/** The EIP-712 digest of the terms: the vault's termsHash and its CREATE2 salt. */
export function hashVaultTerms(params: VaultTermsTypedDataParams): string {
  return hashTypedData(buildVaultTermsTypedData(params));
}

export function hashTypedData(doc: TypedDataDocument): string {
  const [domain, types, message] = ethersTypedDataArgs(doc);
  return TypedDataEncoder.hash(domain, types, message);
}

/** The same document as ethers' signTypedData(domain, types, value) wants it (no EIP712Domain). */
export function ethersTypedDataArgs(
  doc: TypedDataDocument,
): [TypedDataDomainJson, Record<string, TypedDataField[]>, Record<string, string>] {
  const { EIP712Domain: _domainType, ...types } = doc.types;
  return [doc.domain, types, doc.message];
}

export interface PermitTypedDataParams {
  chainId: number | bigint;
  token: string;
  /** The token's EIP-712 domain name and version (ERC-5267 eip712Domain()). */
  tokenName: string;
  tokenVersion: string;
  owner: string;
  spender: string;
  value: bigint;
  nonce: bigint;
  /** Unix seconds. */
  deadline: number | bigint;
}

export function buildPermitTypedData(p: PermitTypedDataParams): TypedDataDocument {
  return {
    domain: { name: p.tokenName, version: p.tokenVersion, chainId: Number(p.chainId), verifyingContract: getAddress(p.token) },
    types: { EIP712Domain: DOMAIN_TYPE, ...PERMIT_TYPES },
    primaryType: "Permit",
    message: {
      owner: getAddress(p.owner),
      spender: getAddress(p.spender),
      value: p.value.toString(),
      nonce: p.nonce.toString(),
      deadline: p.deadline.toString(),
    },
  };
}

/** Splits a 65-byte hex signature into the (v, r, s) a permit call takes. */
export function splitSignature(signature: string): { v: number; r: string; s: string } {
  const sig = Signature.from(signature);
  return { v: sig.v, r: sig.r, s: sig.s };
}

export interface PredictVaultAddressParams {
  factory: string;
  implementation: string;
  termsHash: string;
}

/** CREATE2 address of the EIP-1167 clone the factory deploys for `termsHash` (OpenZeppelin Clones). */
export function predictVaultAddress({ factory, implementation, termsHash }: PredictVaultAddressParams): string {
  const initCode = concat([
    "0x3d602d80600a3d3981f3363d3d373d3d3d363d73",
    getAddress(implementation),
    "0x5af43d82803e903d91602b57fd5bf3",
  ]);
  return getCreate2Address(getAddress(factory), termsHash, keccak256(initCode));
}

// ---------------------------------------------------------------- breach policy

/**
 * VaultFactory's MAX_BREACH_POLICY: the highest policy code a factory deploys. What each code means
 * is the vaults' business (vaults/breach-policies.ts); the chain only mirrors the contract's bound.
 */
export const MAX_BREACH_POLICY = 2;

/** VaultFactory.TERMS_VERSION this daemon signs terms for. */
export const TERMS_VERSION = 2;

// ---------------------------------------------------------------- bounds

// VaultFactory._validate's own bounds. Terms outside them can never be deployed, so a proposal must be
// refused up front: once both parties signed, the relay would fail on every retry.

/** 100% in basis points: the most a limit or the trader's share can be. */
export const MAX_BPS = 10_000;
/** Limits are 1..MAX_BPS (a 0% limit would pause on any loss); the trader's share is 0..MAX_BPS. */
export const MIN_LIMIT_BPS = 1;
export const MIN_TRADER_SHARE_BPS = 0;
/** USDC base units; the vault stores balances in 80 bits. */
export const MIN_INITIAL_BALANCE = 1n;
export const MAX_INITIAL_BALANCE = 2n ** 80n - 1n;
/** Unix seconds; the vault stores times in 48 bits. */
export const MAX_TERMS_TIME = 2 ** 48 - 1;

/** Named like the proposal API's body, which gives limits and share in percent. */
export type TermsField =
  | "investor" | "trader" | "exchangeAccount" | "initialBalance" | "maxDrawdown" | "dailyDrawdown"
  | "dealDeadline" | "traderShare" | "breachPolicy" | "validUntil";

export interface TermsProblem {
  field: TermsField;
  message: string;
}

/**
 * Every term the factory would refuse in a block at `nowSeconds` (TermsExpired, DealExpired,
 * InvalidTerms); [] when the terms can be deployed then. Signatures and an already used salt are not
 * checked here.
 */
export function termsProblems(terms: Omit<VaultTerms, "salt">, nowSeconds: number): TermsProblem[] {
  const problems: TermsProblem[] = [];
  const add = (field: TermsField, message: string) => problems.push({ field, message });
  const investor = addressProblem(terms.investor);
  if (investor) add("investor", investor);
  const trader = addressProblem(terms.trader);
  if (trader) add("trader", trader);
  else if (!investor && getAddress(terms.trader) === getAddress(terms.investor)) add("trader", "must differ from the investor");
  const account = addressProblem(terms.exchangeAccount);
  if (account) add("exchangeAccount", account);
  if (terms.initialBalance < MIN_INITIAL_BALANCE || terms.initialBalance > MAX_INITIAL_BALANCE) {
    add("initialBalance", `must be more than 0 and at most ${formatDecimal(MAX_INITIAL_BALANCE, 6)} USDC`);
  }
  if (!inRange(terms.maxDrawdownBps, MIN_LIMIT_BPS, MAX_BPS)) add("maxDrawdown", "must be more than 0 and at most 100 percent");
  if (!inRange(terms.dailyDrawdownBps, MIN_LIMIT_BPS, MAX_BPS)) add("dailyDrawdown", "must be more than 0 and at most 100 percent");
  if (!inRange(terms.traderShareBps, MIN_TRADER_SHARE_BPS, MAX_BPS)) add("traderShare", "must be from 0 to 100 percent");
  if (!inRange(terms.breachPolicy, 0, MAX_BREACH_POLICY)) add("breachPolicy", `must be a policy code from 0 to ${MAX_BREACH_POLICY}`);
  if (!inRange(terms.dealDeadline, nowSeconds + 1, MAX_TERMS_TIME)) add("dealDeadline", "must be in the future (unix seconds)");
  if (!inRange(terms.validUntil, nowSeconds, MAX_TERMS_TIME)) add("validUntil", "must not have passed (unix seconds)");
  return problems;
}

// ---------------------------------------------------------------- sense

// Terms the factory would deploy but nobody can mean, refused up front as well (the contract is left
// as it is: it guards what would break it, not what is merely absurd).

/** How far ahead a deadline may lie: 5 years, leap days included. */
export const MAX_TERMS_AHEAD_S = 1827 * 86_400;

/** Terms that pass termsProblems but cannot be meant; [] when they make sense. */
export function senselessTerms(terms: Omit<VaultTerms, "salt">, nowSeconds: number): TermsProblem[] {
  const problems: TermsProblem[] = [];
  const { maxDrawdownBps: max, dailyDrawdownBps: daily } = terms;
  if (Number.isSafeInteger(max) && Number.isSafeInteger(daily) && daily > max) {
    // A day's loss never reaches it without breaching the maximum first.
    problems.push({ field: "dailyDrawdown", message: `must be at most maxDrawdown (${formatDecimal(BigInt(max), 2)} percent)` });
  }
  const latest = nowSeconds + MAX_TERMS_AHEAD_S;
  if (terms.dealDeadline > latest) problems.push({ field: "dealDeadline", message: `must be at most 5 years ahead (unix seconds, at most ${latest})` });
  if (terms.validUntil > latest) problems.push({ field: "validUntil", message: `must be at most 5 years ahead (unix seconds, at most ${latest})` });
  return problems;
}

function addressProblem(address: string): string | undefined {
  if (typeof address !== "string" || !isAddress(address)) return "must be an address (0x and 40 hex digits)";
  if (getAddress(address) === ZeroAddress) return "must not be the zero address";
  return undefined;
}

const inRange = (n: number, min: number, max: number) => Number.isSafeInteger(n) && n >= min && n <= max;
