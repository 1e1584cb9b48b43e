// The flat-point invariant over records made by hand: a reading taken with no position equals the base
// plus the fills' closed PnL less fees, plus funding, to the micro-USDC; from the chain alone a reading
// within a second of a fill is no flat point.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { checkFlatPoints } from "../../daemon/verify/money-checks.js";
import type { ChainRecords, ExchangeRecords } from "../../daemon/verify/records.js";

const terms = {
  vault: "0xV", investor: "0xI", trader: "0xT", exchangeAccount: "0xA", initialBalance: 10_000_000_000n,
  maxDrawdownBps: 1000, dailyDrawdownBps: 500, traderShareBps: 2000, createdAt: 1_000, createdBlock: 1,
};
/** What the contract holds: unused by the flat-point check, which reads the events. */
const held = { observedAt: 0, balance: 0n, };
const reading = (observedAt: number, balance: bigint) => ({
  type: "BalanceUpdated" as const, block: observedAt, logIndex: 0, day: 0, balance, peak: balance, dayStart: balance, observedAt, drawdownBps: 0, dailyDrawdownBps: 0,
});
const fill = (time: number, side: "B" | "A", closedPnl: string, fee: string) => ({ tid: time, oid: 1, coin: "BTC", side, sz: "0.1", closedPnl, fee, time });

const exchange: ExchangeRecords = {
  fills: [fill(20_000, "B", "0", "1.5"), fill(40_000, "A", "100.25", "1.75")],
  funding: [{ time: 30_000, usdc: "-0.5" }],
  ledger: [],
};

test("a flat reading is the base plus what the fills and funding paid", () => {
  // 10 000 - 1.5 - 0.5 + 100.25 - 1.75 = 10 096.5
  const chain: ChainRecords = { terms, held, createdServed: true, events: [reading(10, 10_000_000_000n), reading(30, 10_050_000_000n), reading(50, 10_096_500_000n)] };
  const r = checkFlatPoints(chain, exchange);
  assert.is(r.status, "holds", JSON.stringify(r));
  assert.is(r.checked, 1, "the reading at 30 s holds a position: not a flat point");
  const off = checkFlatPoints({ terms, held, createdServed: true, events: [reading(10, 10_000_000_000n), reading(50, 10_096_499_999n)] }, exchange);
  assert.is(off.status, "broken");
  assert.is(off.break!.expected, "10096.5");
  assert.is(off.break!.actual, "10096.499999");
});

test("from the chain alone a reading within a second of a fill is no flat point", () => {
  const r = checkFlatPoints({ terms, held, createdServed: true, events: [reading(10, 10_000_000_000n), reading(41, 1n)] }, exchange);
  assert.is(r.status, "holds");
  assert.is(r.checked, 0);
});

test("through the daemon a reading's own account state decides, cut at its time", () => {
  const chain: ChainRecords = { terms, held, createdServed: true, events: [reading(10, 10_000_000_000n), reading(41, 10_096_500_000n)] };
  const daemon = {
    nettingFrom: 9_000, orders: [], ordersSettledBefore: 0,
    readings: [
      { observedAt: 10, accountValue: "10000", external: 0n, stateTime: 9_000, flat: true },
      { observedAt: 41, accountValue: "10096.5", external: 0n, stateTime: 40_500, flat: true },
    ],
  };
  const r = checkFlatPoints(chain, exchange, daemon);
  assert.is(r.status, "holds", JSON.stringify(r));
  assert.is(r.checked, 1);
});

test("a liquidation past zero: the loss the venue took beyond the account's value is no loss of the account", () => {
  // 10 000 of capital; at the liquidation's mark the account is worth -375 (its ledger record), the
  // close there realizes -10 375 and pays a fee of 82: the account would be at -457, but it ends at 0.
  const liquidated: ExchangeRecords = {
    fills: [fill(20_000, "B", "0", "0"), fill(40_000, "A", "-10375", "82")],
    funding: [],
    ledger: [{ time: 40_000, hash: "0x1", delta: { type: "liquidation", accountValue: "-375", leverageType: "Cross", liquidatedNtlPos: "75000", liquidatedPositions: [{ coin: "BTC", szi: "1" }] } }],
  };
  const chain: ChainRecords = { terms, held, createdServed: true, events: [reading(10, 10_000_000_000n), reading(50, 0n)] };
  assert.is(checkFlatPoints(chain, liquidated).status, "holds", JSON.stringify(checkFlatPoints(chain, liquidated)));
  const unexplained = checkFlatPoints(chain, { ...liquidated, ledger: [] });
  assert.is(unexplained.status, "broken", "without the ledger's record the 457 the venue took is unexplained");
  assert.is(unexplained.break!.expected, "-457");
});

test.run();
