// Revaluing an account at newer mids: each position's value moves by size x (mid - mark at the poll),
// where the mark at the poll is what its unrealized PnL implies; nothing else moves.
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { AccountState, PositionState } from "../../daemon/exchange/types.js";
import { revalue } from "../../daemon/vaults/revaluation.js";

const position = (symbol: string, size: string, entryPrice: string, unrealizedPnl: string): PositionState => ({
  symbol, size, entryPrice, unrealizedPnl, positionValue: "0", liquidationPrice: null, marginUsed: "0",
});
const account = (accountValue: string, positions: PositionState[]): AccountState => ({
  accountValue, withdrawable: "0", totalMarginUsed: "0", positions, time: 0,
});

test("a long gains and a short loses what the mid moved since the poll, times its size", () => {
  // long 0.5 BTC from 60000, marked at 62000 at the poll (uPnL 1000); short 2 ETH from 3000, marked 2900 (uPnL 200)
  const s = account("11200", [position("BTC", "0.5", "60000", "1000"), position("ETH", "-2", "3000", "200")]);
  assert.is(revalue(s, { BTC: "62000", ETH: "2900" }), 11_200_000_000n, "at the poll's marks: the polled value");
  assert.is(revalue(s, { BTC: "61000", ETH: "2900" }), 10_700_000_000n, "BTC -1000: the long loses 500");
  assert.is(revalue(s, { BTC: "62000", ETH: "3100" }), 10_800_000_000n, "ETH +200: the short loses 400");
  assert.is(revalue(s, {}), 11_200_000_000n, "no newer mid: nothing moves");
  assert.is(revalue(s, { DOGE: "1" }), 11_200_000_000n, "a mid for a coin the account does not hold changes nothing");
});

test("exact to the base unit with prices and sizes at the venue's precision", () => {
  const s = account("1000.123456", [position("SOL", "3.21", "150.5", "0.963")]); // marked at 150.8 at the poll
  assert.is(revalue(s, { SOL: "150.9" }), 1_000_444_456n, "3.21 x 0.1 = 0.321 more");
  assert.is(revalue(account("5", []), { BTC: "1" }), 5_000_000n);
});

test.run();
