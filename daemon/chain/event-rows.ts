// Decodes VaultFactory and TradingVault logs (from eth_getLogs or from a receipt) into the rows the
// vault service applies: the contract event name, the vault, where it sits on the chain, and its
// fields as JSON-safe values (amounts as decimal strings, addresses EIP-55).
import { getAddress } from "ethers";
import type { Interface, Log, LogDescription } from "ethers";
import { contractInterface } from "./tx.js";
import { parseLog } from "./decode.js";

/** The vault events the indexer reads (OperatorChanged and ERC-20 events are not vault history). */
export const VAULT_EVENT_NAMES = ["BalanceUpdated", "Paused", "Unpaused", "Closed", "Funded", "Withdrawn"] as const;

/** One decoded contract event, as the chain module hands it over. Amounts in `data` are decimal strings of base units. */
export interface ChainEventInput {
  vault: string;
  type: string;
  txHash: string;
  logIndex: number;
  blockNumber: number;
  /** Block time, Unix seconds. */
  time: number;
  data: Record<string, unknown>;
}

export type DecodedEvent = Omit<ChainEventInput, "time">;

interface Interfaces {
  factory: Interface;
  vault: Interface;
  /** topic0 of VaultCreated and of every vault event, for eth_getLogs. */
  topics: string[];
}

let cached: Interfaces | undefined;

export function eventInterfaces(): Interfaces {
  if (cached) return cached;
  const factory = contractInterface("VaultFactory");
  const vault = contractInterface("TradingVault");
  const topics = [factory.getEvent("VaultCreated")!.topicHash, ...VAULT_EVENT_NAMES.map((n) => vault.getEvent(n)!.topicHash)];
  cached = { factory, vault, topics };
  return cached;
}

const s = (v: unknown) => (v as bigint | number).toString();
const n = (v: unknown) => Number(v);

function vaultCreatedData(factory: string, p: LogDescription): Record<string, unknown> {
  const t = p.args.terms;
  return {
    factory,
    investor: getAddress(t.investor),
    trader: getAddress(t.trader),
    exchangeAccount: getAddress(t.exchangeAccount),
    initialBalance: s(t.initialBalance),
    maxDrawdownBps: n(t.maxDrawdownBps),
    dailyDrawdownBps: n(t.dailyDrawdownBps),
    dealDeadline: n(t.dealDeadline),
    traderShareBps: n(t.traderShareBps),
    breachPolicy: n(t.breachPolicy),
    validUntil: n(t.validUntil),
    salt: t.salt as string,
    termsHash: p.args.termsHash as string,
  };
}

function vaultEventData(p: LogDescription): Record<string, unknown> {
  const a = p.args;
  switch (p.name) {
    case "BalanceUpdated":
      return {
        balance: s(a.balance), peakBalance: s(a.peakBalance), dayStartBalance: s(a.dayStartBalance),
        observedAt: n(a.observedAt), drawdownBps: n(a.drawdownBps), dailyDrawdownBps: n(a.dailyDrawdownBps),
      };
    case "Paused":
      return { reason: n(a.reason), maxDrawdown: (n(a.reason) & 1) !== 0, dailyDrawdown: (n(a.reason) & 2) !== 0 };
    case "Unpaused":
      return { by: getAddress(a.by) };
    case "Closed":
      return {
        by: getAddress(a.by), finalBalance: s(a.finalBalance), profit: s(a.profit),
        traderShare: s(a.traderShare), investorShare: s(a.investorShare),
      };
    case "Funded":
      return { from: getAddress(a.from), amount: s(a.amount) };
    case "Withdrawn":
      return { party: getAddress(a.party), amount: s(a.amount) };
    default:
      return {};
  }
}

const VAULT_EVENTS = new Set<string>(VAULT_EVENT_NAMES);

/**
 * Decodes the logs that belong to our vault system, in chain order: VaultCreated from `factory`, and
 * vault events from vaults that `isKnownVault` accepts or that a VaultCreated earlier in `logs`
 * introduced. Logs of anything else (another contract with a same-named event) are ignored.
 */
export function decodeVaultLogs(logs: readonly Log[], factory: string, isKnownVault: (address: string) => boolean): DecodedEvent[] {
  const { factory: fi, vault: vi } = eventInterfaces();
  const created = new Set<string>();
  const sorted = [...logs].sort((a, b) => a.blockNumber - b.blockNumber || a.index - b.index);
  const out: DecodedEvent[] = [];
  for (const log of sorted) {
    if (log.removed) continue;
    const address = log.address; // checksummed by ethers, as decoded addresses are
    const where = { txHash: log.transactionHash, logIndex: log.index, blockNumber: log.blockNumber };
    if (address === factory) {
      const p = parseLog(fi, log);
      if (p?.name !== "VaultCreated") continue;
      const vault = p.args.vault as string;
      created.add(vault);
      out.push({ vault, type: "VaultCreated", ...where, data: vaultCreatedData(factory, p) });
      continue;
    }
    if (!created.has(address) && !isKnownVault(address)) continue;
    const p = parseLog(vi, log);
    if (!p || !VAULT_EVENTS.has(p.name)) continue;
    out.push({ vault: address, type: p.name, ...where, data: vaultEventData(p) });
  }
  return out;
}
