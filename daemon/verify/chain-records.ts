// A vault's records from any EVM JSON-RPC: its terms (the contract's state()), its creation block,
// its events and the settlement token's transfers in and out of it, in chain order. Only public
// calls: eth_call, eth_getLogs (paged), eth_getBlockByNumber.
import { Interface, JsonRpcProvider, zeroPadValue, type Log } from "ethers";
import { UnreadableError, type ChainEvent, type ChainRecords } from "./records.js";

const VAULT = new Interface([
  "function factory() view returns (address)",
  "function settlementToken() view returns (address)",
  "function state() view returns (tuple(tuple(address investor,address trader,address exchangeAccount,uint256 initialBalance,uint16 maxDrawdownBps,uint16 dailyDrawdownBps,uint64 dealDeadline,uint16 traderShareBps,uint8 breachPolicy,uint64 validUntil,bytes32 salt) terms,bytes32 termsHash,uint256 balance,uint256 peakBalance,uint256 dayStartBalance,uint256 day,uint256 observedAt,uint256 updatedAt,uint256 drawdownBps,uint256 dailyDrawdownBps,bool paused,bool closed,uint256 closedAt,uint256 finalBalance,int256 profit,uint256 traderShare,int256 investorShare,uint256 traderPaid,uint256 investorPaid,uint256 escrow,uint256 traderWithdrawable,uint256 investorWithdrawable))",
  "event BalanceUpdated(uint256 balance,uint256 peakBalance,uint256 dayStartBalance,uint64 observedAt,uint16 drawdownBps,uint16 dailyDrawdownBps)",
  "event Paused(uint8 reason)",
  "event Unpaused(address indexed by)",
  "event Closed(address indexed by,uint256 finalBalance,int256 profit,uint256 traderShare,int256 investorShare)",
  "event Withdrawn(address indexed party,uint256 amount)",
]);
const FACTORY = new Interface(["event VaultCreated(address indexed vault,address indexed investor,address indexed trader,bytes32 termsHash,(address,address,address,uint256,uint16,uint16,uint64,uint16,uint8,uint64,bytes32) terms)"]);
const TOKEN = new Interface(["event Transfer(address indexed from,address indexed to,uint256 value)"]);

export interface ChainReadOptions {
  /** Where to start looking for the vault's creation (its block, when known; 0 scans from genesis). */
  fromBlock?: number;
  /** Blocks per eth_getLogs call (HyperEVM answers at most 50). */
  pageSize?: number;
  /** The vault's creation block and its time (the daemon's record), for a node that no longer serves them. */
  created?: { block: number; time: number };
}

export function chainRecordsFrom(rpcUrl: string, o: ChainReadOptions = {}) {
  const provider = new JsonRpcProvider(rpcUrl, undefined, { staticNetwork: true });
  const pageSize = o.pageSize ?? 100_000;

  async function logs(filter: { address: string; topics?: Array<string | null> }, from: number, to: number): Promise<Log[]> {
    const out: Log[] = [];
    for (let start = from; start <= to; start += pageSize) {
      out.push(...await provider.getLogs({ ...filter, fromBlock: start, toBlock: Math.min(to, start + pageSize - 1) }));
    }
    return out;
  }

  /** UTC day of each block, fetching only enough blocks to find where the day changes. */
  async function daysOf(blocks: number[]): Promise<Map<number, number>> {
    const sorted = [...new Set(blocks)].sort((a, b) => a - b);
    const days = new Map<number, number>();
    const day = async (i: number) => {
      const b = sorted[i]!;
      if (!days.has(b)) {
        const block = await provider.getBlock(b);
        if (!block) throw new UnreadableError(`block ${b} is not served by the RPC`);
        days.set(b, Math.floor(block.timestamp / 86_400));
      }
      return days.get(b)!;
    };
    const fill = async (lo: number, hi: number): Promise<void> => {
      const [a, z] = [await day(lo), await day(hi)];
      if (a === z) { for (let i = lo + 1; i < hi; i++) days.set(sorted[i]!, a); return; }
      if (hi - lo <= 1) return;
      const mid = (lo + hi) >> 1;
      await fill(lo, mid);
      await fill(mid, hi);
    };
    if (sorted.length > 0) await fill(0, sorted.length - 1);
    return days;
  }

  async function read(vault: string): Promise<ChainRecords> {
    const call = async (fn: string) => VAULT.decodeFunctionResult(fn, await provider.call({ to: vault, data: VAULT.encodeFunctionData(fn) }));
    let st, factory: string, token: string;
    try {
      [[st], [factory], [token]] = await Promise.all([call("state"), call("factory"), call("settlementToken")]);
    } catch (err) {
      throw new UnreadableError(`cannot read the vault contract at ${vault} through the RPC: ${(err as Error).message.split("\n")[0]}`);
    }
    const head = await provider.getBlockNumber();
    const topic = zeroPadValue(vault, 32);
    const log = (await logs({ address: factory, topics: [FACTORY.getEvent("VaultCreated")!.topicHash, topic] }, o.fromBlock ?? 0, head))[0];
    if (!log && !o.created) throw new UnreadableError(`no VaultCreated event for ${vault} from block ${o.fromBlock ?? 0} (a node that prunes old blocks may have dropped it)`);
    const from = log?.blockNumber ?? o.created!.block;
    const transfer = TOKEN.getEvent("Transfer")!.topicHash;
    const [own, tokenIn, tokenOut] = await Promise.all([
      logs({ address: vault }, from, head),
      logs({ address: token, topics: [transfer, null, topic] }, from, head),
      logs({ address: token, topics: [transfer, topic] }, from, head),
    ]);
    const incoming = new Set(tokenIn);
    const all = [...own, ...tokenIn, ...tokenOut].sort((a, b) => a.blockNumber - b.blockNumber || a.index - b.index);
    const days = await daysOf(all.map((l) => l.blockNumber));
    const createdAt = log ? (await provider.getBlock(from))?.timestamp : o.created!.time;
    if (createdAt === undefined) throw new UnreadableError(`block ${from} is not served by the RPC`);
    const t = st.terms;
    return {
      terms: {
        vault, investor: t.investor, trader: t.trader, exchangeAccount: t.exchangeAccount, initialBalance: t.initialBalance,
        maxDrawdownBps: Number(t.maxDrawdownBps), dailyDrawdownBps: Number(t.dailyDrawdownBps), traderShareBps: Number(t.traderShareBps),
        createdAt, createdBlock: from,
      },
      events: all.flatMap((l) => decode(l, vault, incoming.has(l), days.get(l.blockNumber)!)),
      held: { observedAt: Number(st.observedAt), balance: st.balance as bigint },
      createdServed: log !== undefined,
    };
  }

  return { read, close: () => provider.destroy() };
}

/**
 * A node that prunes old history (the embedded chain keeps its last few thousand blocks) answers
 * getLogs without the events it dropped, oldest first: a history is whole when the node still serves
 * the vault's VaultCreated, its first reading looks like a vault's first (its own day start, the peak
 * at most the initial balance above it) and its last is the one the contract holds now.
 */
export function isWhole(c: ChainRecords): boolean {
  return c.createdServed && endsHeld(c);
}

/** The first reading looks like a first, and the last is the one the contract holds. */
export function endsHeld(c: ChainRecords): boolean {
  const readings = c.events.filter((e) => e.type === "BalanceUpdated");
  const first = readings[0];
  const last = readings.at(-1);
  const initial = c.terms.initialBalance;
  if (first === undefined) return c.held.observedAt === 0;
  return first.dayStart === first.balance && first.peak === (first.balance > initial ? first.balance : initial)
    && last!.observedAt === c.held.observedAt && last!.balance === c.held.balance;
}

function decode(l: Log, vault: string, incoming: boolean, day: number): ChainEvent[] {
  const at = { block: l.blockNumber, logIndex: l.index, day };
  if (l.address.toLowerCase() !== vault.toLowerCase()) {
    const { args } = TOKEN.parseLog(l)!;
    return [{ ...at, type: incoming ? "TokenIn" : "TokenOut", amount: args.value as bigint }];
  }
  const parsed = VAULT.parseLog(l);
  if (!parsed) return [];
  const a = parsed.args;
  switch (parsed.name) {
    case "BalanceUpdated":
      return [{ ...at, type: "BalanceUpdated", balance: a.balance, peak: a.peakBalance, dayStart: a.dayStartBalance, observedAt: Number(a.observedAt), drawdownBps: Number(a.drawdownBps), dailyDrawdownBps: Number(a.dailyDrawdownBps) }];
    case "Paused":
      return [{ ...at, type: "Paused", reason: Number(a.reason) }];
    case "Unpaused":
      return [{ ...at, type: "Unpaused" }];
    case "Closed":
      return [{ ...at, type: "Closed", finalBalance: a.finalBalance, profit: a.profit, traderShare: a.traderShare, investorShare: a.investorShare }];
    case "Withdrawn":
      return [{ ...at, type: "Withdrawn", party: a.party, amount: a.amount }];
    default:
      return [];
  }
}
