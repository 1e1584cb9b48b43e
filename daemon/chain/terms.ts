// Vault terms and permits as EIP-712 typed data, their hashes, and vault address prediction. Pure
// functions: no provider needed, so the daemon can hand typed data to clients and rebuild addresses
// offline. The type strings must match contracts/VaultTypes.sol and OpenZeppelin's ERC20Permit.
import { Signature, TypedDataEncoder, concat, getAddress, getCreate2Address, hexlify, keccak256, randomBytes } from "ethers";
import type { TypedDataField } from "ethers";

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
