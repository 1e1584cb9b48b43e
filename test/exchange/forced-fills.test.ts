// Which fills the venue forced (exchange/forced-fills.ts): the rule over the SDK's fill fields, the
// adapter reading the sim's liquidation and auto-deleveraging fills through it, and the liquidation's
// ledger record counted as no transfer (the balance netting and the verifier).
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { Wallet } from "ethers";
import { forcedFillData, forcedKind } from "../../daemon/exchange/forced-fills.js";
import { newCloid } from "../../daemon/trading/trading-service.js";
import { externalDelta } from "../../daemon/verify/external-transfers.js";
import { adapterWithAgent, type AdapterRig } from "./_adapter.js";

const ME = "0x2546BcD3c84621e976D8185a91A922aE77ECEc30";
const OTHER = "0x1479aE2A5d2e2Cf0fF2C3F50a6d8Cdc6b7Ac9325";
const liq = (liquidatedUser?: string) => ({ ...(liquidatedUser ? { liquidatedUser } : {}), markPx: "2800.0", method: "market" });

const rule = suite("the forced-fill rule");

rule("the account's own liquidation: named (in any case), or nobody named, or a Liquidated dir", () => {
  assert.equal(forcedKind({ dir: "Liquidated Cross Long", liquidation: liq(ME.toLowerCase()) }, ME), { kind: "liquidation", markPrice: "2800" });
  assert.equal(forcedKind({ dir: "Close Long", liquidation: liq(ME) }, ME.toLowerCase()), { kind: "liquidation", markPrice: "2800" });
  assert.equal(forcedKind({ dir: "Close Short", liquidation: liq() }, ME), { kind: "liquidation", markPrice: "2800" });
  assert.equal(forcedKind({ dir: "Liquidated Isolated Short" }, ME), { kind: "liquidation", markPrice: null });
});

rule("auto-deleveraging: the Auto-Deleveraging dir, naming someone else or nobody", () => {
  assert.equal(forcedKind({ dir: "Auto-Deleveraging", liquidation: liq(OTHER) }, ME), { kind: "deleveraging", markPrice: "2800" });
  assert.equal(forcedKind({ dir: "Auto-Deleveraging" }, ME), { kind: "deleveraging", markPrice: null });
  // The underwater account's side of it was its liquidation.
  assert.equal(forcedKind({ dir: "Auto-Deleveraging", liquidation: liq(ME) }, ME), { kind: "liquidation", markPrice: "2800" });
});

rule("an order of the account that met someone else's liquidation is an ordinary trade", () => {
  assert.is(forcedKind({ dir: "Open Long", liquidation: liq(OTHER) }, ME), null);
  assert.is(forcedKind({ dir: "Close Short", liquidation: { liquidatedUser: OTHER, markPx: "1", method: "backstop" } }, ME), null);
  assert.is(forcedKind({ dir: "Open Short" }, ME), null);
  assert.is(forcedKind({ dir: "Settlement" }, ME), null);
});

rule("what a forced fill cost: the realized loss plus the fee, exactly; negative for a gain", () => {
  const base = { tid: 1, oid: 2, symbol: "ETH", side: "sell" as const, price: "2800.1", size: "1.5", time: 0, cloid: null, hash: "0x" };
  assert.equal(forcedFillData({ ...base, fee: "1.890068", closedPnl: "-308.61", forced: { kind: "liquidation", markPrice: "2800" } }, "9"),
    { tradeId: "9", symbol: "ETH", side: "sell", size: "1.5", price: "2800.1", loss: "310.500068", markPrice: "2800" });
  assert.equal(forcedFillData({ ...base, fee: "0", closedPnl: "12.25", forced: { kind: "deleveraging", markPrice: null } }, "10").loss, "-12.25");
  assert.not.ok("markPrice" in forcedFillData({ ...base, fee: "0", closedPnl: "1", forced: { kind: "deleveraging", markPrice: null } }, "10"));
});

rule.run();

const t = suite<AdapterRig>("the adapter's forced fills, from the sim");
t.before(async (ctx) => {
  Object.assign(ctx, await adapterWithAgent(120_000));
});
t.after(async (ctx) => {
  await ctx.h.close();
});

t("a trade is not forced; a deleveraging and a liquidation are, with the mark", async ({ h, ex, master, agent }) => {
  h.sim.setPrice("BTC", "60000");
  const buy = await ex.placeOrder(agent, { asset: 0, isBuy: true, price: "61000", size: "0.2", reduceOnly: false, tif: "Ioc", cloid: newCloid() });
  assert.is(buy.kind, "filled");
  h.sim.setPrice("BTC", "61000");
  h.sim.deleverage(master.address, "BTC", "0.1");
  h.sim.setPrice("BTC", "9000"); // 5 000 USDC and 0.1 BTC left: under maintenance below about 9 100
  const fills = await ex.fills(master.address, 0);
  assert.equal(fills.map((f) => [f.size, f.forced]), [
    ["0.2", null],
    ["0.1", { kind: "deleveraging", markPrice: "61000" }],
    ["0.1", { kind: "liquidation", markPrice: "9000" }],
  ]);
  const [, adl, liquidation] = fills;
  assert.equal([adl!.fee, adl!.side, liquidation!.side], ["0", "sell", "sell"]);
  // The liquidation's ledger record moves no money in or out, for the readings' netting and for the verifier's.
  const ledger = await ex.ledgerUpdates(master.address, 0);
  assert.equal(ledger.map((l) => [l.type, l.usdcDelta]), [["deposit", "5000"], ["liquidation", "0"]]);
  const raw = await h.info.userNonFundingLedgerUpdates({ user: master.address as `0x${string}`, startTime: 0 });
  const delta = raw.find((u) => u.delta.type === "liquidation")!.delta;
  assert.is(externalDelta(delta as unknown as { type: string } & Record<string, unknown>, master.address), 0n);
  // Someone else's fills never carry this account's forced fills.
  assert.equal(await ex.fills(Wallet.createRandom().address, 0), []);
});

t.run();
