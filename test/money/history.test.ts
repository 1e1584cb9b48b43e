// A chain node that pruned a vault's oldest blocks (the embedded chain does) serves only the end of its
// history: that is never read as a broken vault. Alone it is unreadable; through the daemon, its index
// of the pruned blocks fills the gap, and the answer says so.
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { ChainEvent, ChainRecords, DaemonRecords } from "../../daemon/verify/records.js";
import { verifyVault } from "../../daemon/verify/verify-vault.js";

const terms = {
  vault: "0xV", investor: "0xI", trader: "0xT", exchangeAccount: "0xA", initialBalance: 10_000_000_000n,
  maxDrawdownBps: 1000, dailyDrawdownBps: 500, traderShareBps: 2000, createdAt: 86_400 * 20_000, createdBlock: 1,
};
const reading = (block: number, balance: bigint, peak: bigint, dayStart: bigint, observedAt: number, dd = 0, daily = 0): ChainEvent => ({
  type: "BalanceUpdated", block, logIndex: 0, day: 20_000, balance, peak, dayStart, observedAt, drawdownBps: dd, dailyDrawdownBps: daily,
});
const whole = [
  reading(2, 10_000_000_000n, 10_000_000_000n, 10_000_000_000n, terms.createdAt + 1),
  reading(3, 9_800_000_000n, 10_000_000_000n, 10_000_000_000n, terms.createdAt + 61, 200, 200),
  reading(4, 9_900_000_000n, 10_000_000_000n, 10_000_000_000n, terms.createdAt + 121, 100, 100),
];
const held = { observedAt: terms.createdAt + 121, balance: 9_900_000_000n };
const pruned: ChainRecords = { terms, events: whole.slice(1), held, createdServed: false };
const exchange = { fills: [], funding: [], ledger: [] };
const daemon = (chainEvents?: ChainEvent[]): DaemonRecords => ({
  nettingFrom: terms.createdAt * 1000, orders: [], ordersSettledBefore: 0, chainEvents,
  // A position is open after the first reading: its value moves with the price, not with fills.
  readings: whole.map((e, i) => ({ observedAt: (e as { observedAt: number }).observedAt, accountValue: String(Number((e as { balance: bigint }).balance) / 1e6), external: 0n, stateTime: (e as { observedAt: number }).observedAt * 1000, flat: i === 0 })),
});

test("a pruned history alone is unreadable, with the reason", async () => {
  const v = await verifyVault("0xV", { chain: async () => pruned, exchange: async () => exchange }, 0);
  assert.is(v.outcome, "unreadable");
  assert.match(v.reason!, /no longer serves all of the vault's events/);
});

test("through the daemon, its index of the pruned blocks fills the gap and the answer says so", async () => {
  const v = await verifyVault("0xV", { chain: async () => pruned, exchange: async () => exchange, daemon: async () => daemon(whole) }, 0);
  assert.is(v.outcome, "holds", JSON.stringify(v.invariants));
  assert.match(v.note!, /events before block 3 are the daemon's index/);
  const gap = await verifyVault("0xV", { chain: async () => pruned, exchange: async () => exchange, daemon: async () => daemon([]) }, 0);
  assert.is(gap.outcome, "unreadable", "an index that does not fill the gap fills nothing");
});

test("a whole history is the node's alone, with no note", async () => {
  const v = await verifyVault("0xV", { chain: async () => ({ terms, events: whole, held, createdServed: true }), exchange: async () => exchange, daemon: async () => daemon([]) }, 0);
  assert.is(v.outcome, "holds", JSON.stringify(v.invariants));
  assert.is(v.note, undefined);
});

test.run();
