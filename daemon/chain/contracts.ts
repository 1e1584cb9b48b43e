// Typed bindings of VaultFactory and TradingVault: one small function per chain action,
// `(runner, params) => Promise<result>`. Writes wait for the receipt and report what its events say;
// every failure leaves as an AppError whose code comes from the decoded custom error
// (chain-errors.ts). This is the module the daemon imports; it re-exports deployment (deploy.ts),
// terms and typed data (terms.ts) and the plumbing types, so callers need one import.
import { getAddress } from "ethers";
import type { Contract, ContractRunner, Signer, TransactionReceipt } from "ethers";
import { AppError } from "../errors.js";
import { logsOf, termsFromResult, vaultStateFromResult } from "./decode.js";
import type { VaultState } from "./decode.js";
import { buildPermitTypedData, splitSignature, TERMS_VERSION } from "./terms.js";
import type { TypedDataDocument, VaultTerms } from "./terms.js";
import { contractAt, contractInterface, oneLog, read, send, txResult } from "./tx.js";
import type { TxResult } from "./tx.js";

export * from "./deploy.js";
export * from "./terms.js";
export { contractAt, contractInterface } from "./tx.js";
export type { TxResult } from "./tx.js";
export type { VaultState } from "./decode.js";
export { decodeRevert, isRevert, toAppError } from "./chain-errors.js";

/**
 * Gas planning for oracle batches (measured by test/contracts/gas-report.test.ts, which keeps these
 * upper bounds honest): a batch costs about UPDATE_GAS_BASE plus UPDATE_GAS_PER_VAULT per reading,
 * the per-reading figure being the worst case (a new UTC day and a pause in the same write).
 */
export const UPDATE_GAS_BASE = 30_000n;
export const UPDATE_GAS_PER_VAULT = 22_000n;

// ------------------------------------------------------------------ factory

export interface FactoryInfo {
  factory: string;
  implementation: string;
  settlementToken: string;
  operator: string;
  chainId: bigint;
}

export async function readFactory(runner: ContractRunner, params: { factory: string }): Promise<FactoryInfo> {
  const c = contractAt("VaultFactory", params.factory, runner);
  return read("read factory", async () => {
    const [implementation, settlementToken, operator, domain] = await Promise.all([
      c.getFunction("implementation")(),
      c.getFunction("settlementToken")(),
      c.getFunction("operator")(),
      c.getFunction("eip712Domain")(),
    ]);
    return { factory: getAddress(params.factory), implementation, settlementToken, operator, chainId: domain[3] as bigint };
  });
}

/**
 * Refuses a factory that signs other terms than this daemon (one deployed before breach policies had
 * no TERMS_VERSION at all): every proposal would be refused on-chain after both parties signed.
 */
export async function assertTermsVersion(runner: ContractRunner, factory: string): Promise<void> {
  const c = contractAt("VaultFactory", factory, runner);
  // Only a call the contract itself cannot answer, every time, means an older factory. A node that did
  // not answer (a chain still coming up) is asked again, and then reported as unavailable, never as
  // "older". A refusal is asked again too: right after a restart's replay Anvil can refuse a call at
  // `latest` ("BlockOutOfRangeError: block height is 168 but requested was 167"), which ethers reports
  // as a call exception without revert data, exactly like a factory that has no TERMS_VERSION.
  let version: number | undefined;
  for (let attempt = 1, refusals = 0; ; attempt++) {
    try {
      version = Number(await c.getFunction("TERMS_VERSION")());
      break;
    } catch (e) {
      const code = (e as { code?: string }).code;
      if ((code === "CALL_EXCEPTION" || code === "BAD_DATA") && ++refusals >= 3) break;
      if (attempt >= 6) throw new AppError("CHAIN_UNAVAILABLE", "cannot read the vault factory's terms version", { cause: e, retryable: true });
      await new Promise((r) => setTimeout(r, 200 * attempt));
    }
  }
  if (version === TERMS_VERSION) return;
  throw new AppError(
    "CHAIN_UNAVAILABLE",
    `the vault factory at ${getAddress(factory)} ${version === undefined ? "predates breach policies (terms version 1)" : `takes terms version ${version}`}; ` +
      `this tradevaultd signs terms version ${TERMS_VERSION}. Close its vaults with the tradevaultd that created them, ` +
      "then start this one with a new --data-dir (embedded chain) or point --factory-address at a new factory (or omit it to deploy one) on your chain",
  );
}

export interface CreateVaultParams {
  factory: string;
  terms: VaultTerms;
  investorSignature: string;
  traderSignature: string;
}

export interface CreateVaultResult extends TxResult {
  vault: string;
  termsHash: string;
  terms: VaultTerms;
}

export async function createVault(signer: Signer, p: CreateVaultParams): Promise<CreateVaultResult> {
  const c = contractAt("VaultFactory", p.factory, signer);
  const receipt = await send("createVault", () =>
    c.getFunction("createVault")(termsArg(p.terms), p.investorSignature, p.traderSignature),
  );
  const event = oneLog(receipt, c.interface, "VaultCreated", p.factory);
  return {
    vault: getAddress(event.args.vault),
    termsHash: event.args.termsHash,
    terms: termsFromResult(event.args.terms),
    ...txResult(receipt),
  };
}

export interface BalanceReading {
  vault: string;
  /** Settlement-token base units. */
  balance: bigint;
  /** Unix seconds when the balance was read from the exchange. */
  observedAt: number;
}

export interface AppliedReading {
  vault: string;
  balance: bigint;
  peakBalance: bigint;
  dayStartBalance: bigint;
  observedAt: number;
  drawdownBps: number;
  dailyDrawdownBps: number;
}

export interface UpdateBalancesResult extends TxResult {
  applied: AppliedReading[];
  /** Readings the vaults ignored: closed vault, or not newer than the stored reading. */
  skipped: BalanceReading[];
  /** Vaults this transaction paused, with the breach bits (1 max drawdown, 2 daily). */
  paused: { vault: string; reason: number }[];
}

/** Oracle write of many readings in one transaction (operator only). */
export async function updateBalances(signer: Signer, p: { factory: string; readings: BalanceReading[]; gasLimit?: bigint }): Promise<UpdateBalancesResult> {
  if (p.readings.length === 0) throw new AppError("INVALID_INPUT", "updateBalances needs at least one reading");
  const c = contractAt("VaultFactory", p.factory, signer);
  const receipt = await send("updateBalances", () =>
    c.getFunction("updateBalances")(
      p.readings.map((r) => r.vault),
      p.readings.map((r) => r.balance),
      p.readings.map((r) => r.observedAt),
      p.gasLimit === undefined ? {} : { gasLimit: p.gasLimit },
    ),
  );
  const vaultIface = contractInterface("TradingVault");
  // A receipt's log addresses are checksummed by ethers already; a checksum is a keccak each, and
  // 1,000 readings made three of them per vault (bench oracle-scale's profile).
  const applied = logsOf(receipt, vaultIface, "BalanceUpdated").map((log) => ({
    vault: log.address,
    balance: log.args.balance as bigint,
    peakBalance: log.args.peakBalance as bigint,
    dayStartBalance: log.args.dayStartBalance as bigint,
    observedAt: Number(log.args.observedAt),
    drawdownBps: Number(log.args.drawdownBps),
    dailyDrawdownBps: Number(log.args.dailyDrawdownBps),
  }));
  const key = (vault: string, at: number) => `${vault.toLowerCase()}@${at}`;
  const seen = new Set(applied.map((a) => key(a.vault, a.observedAt)));
  const skipped = p.readings.filter((r) => !seen.has(key(r.vault, r.observedAt)));
  const paused = logsOf(receipt, vaultIface, "Paused").map((log) => ({ vault: log.address, reason: Number(log.args.reason) }));
  return { applied, skipped, paused, ...txResult(receipt) };
}

export async function setOperator(signer: Signer, p: { factory: string; operator: string }): Promise<TxResult> {
  const c = contractAt("VaultFactory", p.factory, signer);
  return txResult(await send("setOperator", () => c.getFunction("setOperator")(p.operator)));
}

// ------------------------------------------------------------------ vault

export async function readVaultState(runner: ContractRunner, p: { vault: string }): Promise<VaultState> {
  const c = contractAt("TradingVault", p.vault, runner);
  return vaultStateFromResult(p.vault, await read("read vault", () => c.getFunction("state")()));
}

export interface CloseVaultResult extends TxResult {
  closedBy: string;
  finalBalance: bigint;
  profit: bigint;
  traderShare: bigint;
  investorShare: bigint;
}

export async function closeVault(signer: Signer, p: { vault: string }): Promise<CloseVaultResult> {
  const c = contractAt("TradingVault", p.vault, signer);
  const receipt = await send("close", () => c.getFunction("close")());
  const a = oneLog(receipt, c.interface, "Closed", p.vault).args;
  return {
    closedBy: getAddress(a.by),
    finalBalance: a.finalBalance,
    profit: a.profit,
    traderShare: a.traderShare,
    investorShare: a.investorShare,
    ...txResult(receipt),
  };
}

/** Trader, or the operator relaying for the trader; the contract checks the recovery. */
export async function unpauseVault(signer: Signer, p: { vault: string }): Promise<TxResult> {
  const c = contractAt("TradingVault", p.vault, signer);
  return txResult(await send("unpause", () => c.getFunction("unpause")()));
}

/** Operator-only pause for a reason the contract cannot see (4: the account's mode changed). */
export const OPERATOR_PAUSE_ACCOUNT_MODE = 4;

export async function pauseVault(signer: Signer, p: { vault: string; reason: number }): Promise<TxResult> {
  const c = contractAt("TradingVault", p.vault, signer);
  return txResult(await send("pause", () => c.getFunction("pause")(p.reason)));
}

export interface WithdrawResult extends TxResult {
  amount: bigint;
  recipient: string;
}

/** Pays `party` (investor or trader address) its entitlement; the party or the operator sends it. */
export async function withdrawFromVault(signer: Signer, p: { vault: string; party: string }): Promise<WithdrawResult> {
  const c = contractAt("TradingVault", p.vault, signer);
  const receipt = await send("withdraw", () => c.getFunction("withdraw")(p.party));
  const log = oneLog(receipt, c.interface, "Withdrawn", p.vault);
  return { amount: log.args.amount, recipient: getAddress(log.args.party), ...txResult(receipt) };
}

export interface FundResult extends TxResult {
  from: string;
  amount: bigint;
}

/**
 * Funds the escrow from the signer's tokens, approving the vault first when the allowance is short.
 * (The TestUSDC ABI covers the ERC-20 and EIP-2612 functions of any settlement token.)
 */
export async function fundVault(signer: Signer, p: { vault: string; amount: bigint }): Promise<FundResult> {
  const vault = contractAt("TradingVault", p.vault, signer);
  const token = contractAt("TestUSDC", await read("read vault", () => vault.getFunction("settlementToken")()), signer);
  const owner = await signer.getAddress();
  const allowance: bigint = await read("read allowance", () => token.getFunction("allowance")(owner, p.vault));
  if (allowance < p.amount) await send("approve", () => token.getFunction("approve")(p.vault, p.amount));
  return fundedResult(vault, p.vault, await send("fund", () => vault.getFunction("fund")(p.amount)));
}

export interface FundWithPermitParams {
  vault: string;
  amount: bigint;
  /** The permit's deadline (unix seconds), as signed. */
  deadline: number | bigint;
  /** The investor's 65-byte hex signature over vaultPermitTypedData(...). */
  signature: string;
}

/** Relays the investor's permit: the tokens come from the investor, the signer only pays gas. */
export async function fundVaultWithPermit(signer: Signer, p: FundWithPermitParams): Promise<FundResult> {
  const c = contractAt("TradingVault", p.vault, signer);
  const { v, r, s } = splitSignature(p.signature);
  const receipt = await send("fundWithPermit", () => c.getFunction("fundWithPermit")(p.amount, p.deadline, v, r, s));
  return fundedResult(c, p.vault, receipt);
}

function fundedResult(c: Contract, vault: string, receipt: TransactionReceipt): FundResult {
  const log = oneLog(receipt, c.interface, "Funded", vault);
  return { from: getAddress(log.args.from), amount: log.args.amount, ...txResult(receipt) };
}

/** The EIP-2612 permit the investor signs so the vault may pull `amount` into its escrow. */
export async function vaultPermitTypedData(
  runner: ContractRunner,
  p: { vault: string; amount: bigint; deadline: number | bigint },
): Promise<TypedDataDocument> {
  const vault = contractAt("TradingVault", p.vault, runner);
  const [tokenAddress, state] = await read("read vault", () =>
    Promise.all([vault.getFunction("settlementToken")(), vault.getFunction("state")()]),
  );
  const investor: string = state.terms.investor;
  const token = contractAt("TestUSDC", tokenAddress, runner);
  const [domain, nonce] = await read("read token", () =>
    Promise.all([token.getFunction("eip712Domain")(), token.getFunction("nonces")(investor)]),
  );
  return buildPermitTypedData({
    chainId: domain[3], token: tokenAddress, tokenName: domain[1], tokenVersion: domain[2],
    owner: investor, spender: p.vault, value: p.amount, nonce, deadline: p.deadline,
  });
}

/** The terms as the ABI tuple `VaultTerms` (ethers takes named members). */
function termsArg(t: VaultTerms) {
  return { ...t, investor: getAddress(t.investor), trader: getAddress(t.trader), exchangeAccount: getAddress(t.exchangeAccount) };
}
