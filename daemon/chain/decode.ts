// Turns what ethers decodes (Result objects, receipt logs) into the plain typed objects the daemon
// uses: bigint for money, number for seconds and basis points, EIP-55 addresses.
import { LogDescription, TransactionReceipt, getAddress } from "ethers";
import type { EventFragment, Interface, Log, Result } from "ethers";
import type { VaultTerms } from "./terms.js";

/** A vault's full on-chain state (TradingVault.state()). Money in settlement-token base units. */
export interface VaultState {
  address: string;
  terms: VaultTerms;
  termsHash: string;
  balance: bigint;
  peakBalance: bigint;
  dayStartBalance: bigint;
  /** UTC day (unix seconds / 86400) that dayStartBalance belongs to. */
  day: number;
  /** When the stored balance was read from the exchange (0: never). */
  observedAt: number;
  /** Block time of the last applied update (0: never). */
  updatedAt: number;
  /** Current drawdowns in basis points, rounded down. */
  drawdownBps: number;
  dailyDrawdownBps: number;
  paused: boolean;
  closed: boolean;
  closedAt: number;
  /** Zero until closed. */
  finalBalance: bigint;
  profit: bigint;
  traderShare: bigint;
  investorShare: bigint;
  traderPaid: bigint;
  investorPaid: bigint;
  /** Settlement tokens the vault holds now. */
  escrow: bigint;
  traderWithdrawable: bigint;
  investorWithdrawable: bigint;
}

export interface ParsedLog extends LogDescription {
  address: string;
}

const eventsByTopic = new WeakMap<Interface, Map<string, EventFragment>>();

/**
 * Interface.parseLog, with the events indexed by topic once per interface: ethers' parseLog finds the
 * event by computing every event's topic hash (a keccak of its signature) again for every log, which
 * was half a second of a 1000-vault oracle cycle. Null for a log that is none of `iface`'s events.
 */
export function parseLog(iface: Interface, log: { topics: readonly string[]; data: string }): LogDescription | null {
  let index = eventsByTopic.get(iface);
  if (!index) {
    const built = new Map<string, EventFragment>();
    iface.forEachEvent((fragment) => {
      if (!fragment.anonymous) built.set(fragment.topicHash, fragment);
    });
    eventsByTopic.set(iface, (index = built));
  }
  const topic = log.topics[0];
  const fragment = topic === undefined ? undefined : index.get(topic);
  if (!fragment) return null;
  try {
    return new LogDescription(fragment, topic!, iface.decodeEventLog(fragment, log.data, log.topics));
  } catch {
    return null; // same topic, other layout (another contract's event of the same signature)
  }
}

/**
 * The receipt's logs as the node gave them. A contract call's receipt overrides `logs` with a getter
 * that wraps every log on every read, finding its event by hashing each event signature again (4.5%
 * of a 1,000-vault oracle cycle, bench oracle-scale); the base class's getter returns them as they are.
 */
export const plainLogs = (receipt: TransactionReceipt): readonly Log[] => Reflect.get(TransactionReceipt.prototype, "logs", receipt) as readonly Log[];

/** Logs of `receipt` that are event `name` of `iface`, optionally only those emitted by `address`. */
export function logsOf(receipt: TransactionReceipt, iface: Interface, name: string, address?: string): ParsedLog[] {
  const out: ParsedLog[] = [];
  const from = address === undefined ? undefined : address.toLowerCase();
  // Only the named event's logs are decoded: an oracle receipt holds a thousand of another event.
  const topic = iface.getEvent(name)?.topicHash;
  for (const log of plainLogs(receipt)) {
    if (log.topics[0] !== topic) continue;
    if (from && log.address.toLowerCase() !== from) continue;
    const parsed = parseLog(iface, log);
    if (parsed?.name === name) out.push(Object.assign(parsed, { address: log.address }));
  }
  return out;
}

export function termsFromResult(r: Result): VaultTerms {
  return {
    investor: getAddress(r.investor),
    trader: getAddress(r.trader),
    exchangeAccount: getAddress(r.exchangeAccount),
    initialBalance: r.initialBalance as bigint,
    maxDrawdownBps: Number(r.maxDrawdownBps),
    dailyDrawdownBps: Number(r.dailyDrawdownBps),
    dealDeadline: Number(r.dealDeadline),
    traderShareBps: Number(r.traderShareBps),
    breachPolicy: Number(r.breachPolicy),
    validUntil: Number(r.validUntil),
    salt: r.salt as string,
  };
}

export function vaultStateFromResult(address: string, r: Result): VaultState {
  return {
    address: getAddress(address),
    terms: termsFromResult(r.terms),
    termsHash: r.termsHash,
    balance: r.balance,
    peakBalance: r.peakBalance,
    dayStartBalance: r.dayStartBalance,
    day: Number(r.day),
    observedAt: Number(r.observedAt),
    updatedAt: Number(r.updatedAt),
    drawdownBps: Number(r.drawdownBps),
    dailyDrawdownBps: Number(r.dailyDrawdownBps),
    paused: r.paused,
    closed: r.closed,
    closedAt: Number(r.closedAt),
    finalBalance: r.finalBalance,
    profit: r.profit,
    traderShare: r.traderShare,
    investorShare: r.investorShare,
    traderPaid: r.traderPaid,
    investorPaid: r.investorPaid,
    escrow: r.escrow,
    traderWithdrawable: r.traderWithdrawable,
    investorWithdrawable: r.investorWithdrawable,
  };
}
