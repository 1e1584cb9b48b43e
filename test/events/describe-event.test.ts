// The one describer of a vault event (daemon/events/describe-event.ts): every event type has its
// sentence, and the sentences carry the figures a person wants, exactly (no float in between).
import { test } from "uvu";
import * as assert from "uvu/assert";
import { VAULT_EVENT_TYPES, type VaultEventType } from "../../daemon/events/event-types.js";
import { describeEvent, DESCRIBED_TYPES, fromStream, narrator, type DescribableEvent, type EventContext } from "../../daemon/events/describe-event.js";
import { usdcText, grouped, plainDecimal } from "../../daemon/lib/figures.js";
import { userNoticeData, vaultEvent, type VaultEvent } from "../../daemon/http/responses.js";
import { describeNotice, type DescribableNotice } from "../../daemon/events/describe-notice.js";
import { USER_NOTICE_TYPES } from "../../daemon/events/event-types.js";

const VAULT = "0x1234567890AbcdEF1234567890aBcdef12345678";
const IVY = "0x14791697260E4c9A71f18484C9f997B308e59325";
const TOM = "0x2546BcD3c84621e976D8185a91A922aE77ECEc30";
const OPERATOR = "0x8626f6940E2eb28930eFb4CeF49B2d1F2C9C1199";
const DEADLINE = 1_798_761_600; // 2027-01-01 00:00 UTC

type Sample<K extends VaultEventType> = Extract<VaultEvent, { type: K }>["data"];
/** One event of each type, as the API renders it. Typed by the list: a new type needs its sample here too. */
const SAMPLES: { [K in VaultEventType]: Sample<K> } = {
  VaultCreated: {
    factory: OPERATOR, investor: IVY, trader: TOM, exchangeAccount: IVY, initialBalance: "10000", maxDrawdown: 10, dailyDrawdown: 5,
    dealDeadline: DEADLINE, traderShare: 20, breachPolicy: "flatten", validUntil: DEADLINE, salt: "0x01", termsHash: "0x02",
  },
  BalanceUpdated: { balance: "9412.5", peakBalance: "10000", dayStartBalance: "9412.5", observedAt: DEADLINE - 86_400, drawdown: 5.87, dailyDrawdown: 0 },
  Paused: { reason: 2, maxDrawdown: false, dailyDrawdown: true },
  Unpaused: { by: OPERATOR },
  Closed: { by: OPERATOR, finalBalance: "10500", profit: "500", traderShare: "100", investorShare: "400" },
  Funded: { from: IVY, amount: "500" },
  Withdrawn: { party: TOM, amount: "100" },
  Fill: { tradeId: "7", orderId: 42, symbol: "BTC", side: "sell", size: "0.1", price: "54000.5", pnl: "99.9", fee: "2.430022" },
  BalanceMismatch: { expected: "10000", observed: "9000" },
  OrdersCanceled: { reason: "paused", count: 2, attempts: 1 },
  Flattened: {
    reason: "paused", canceledOrders: 1, attempts: 2,
    positions: [
      { symbol: "BTC", size: "0.1", orderId: 5, filledSize: "0.1", averagePrice: "53001" },
      { symbol: "ETH", size: "-1", orderId: 6, filledSize: "1", averagePrice: "3000.25" },
    ],
    dust: [{ symbol: "SOL", size: "0.01", value: "1.4" }],
  },
  AccountModeChanged: { from: "default", to: "unifiedAccount", valued: false },
  EnforcementFailing: { policy: "flatten", since: DEADLINE - 3600, attempts: 4, error: "the agent is not approved" },
  DeadlineApproaching: { deadline: DEADLINE, hoursLeft: 23 },
  StopFailed: { symbol: "SOL", kind: "sl", triggerPrice: "140", size: "2", orderId: 77, reason: "no fill within the slippage bound" },
  StopFilled: { symbol: "SOL", kind: "sl", triggerPrice: "140", size: "2", price: "126.05", orderId: 78, attempts: 2 },
  Liquidated: { tradeId: "9", symbol: "ETH", side: "sell", size: "1.5", price: "2800.1", loss: "310.5", markPrice: "2800" },
  Deleveraged: { tradeId: "10", symbol: "BTC", side: "buy", size: "0.01", price: "61000", loss: "-12.25" },
  LimitNear: { limit: "daily", level: 80, drawdown: 4.01, limitPercent: 5 },
};

const LIMITS: EventContext = { vault: { maxDrawdown: 10, dailyDrawdown: 5, investor: IVY, trader: TOM } };
const event = <K extends VaultEventType>(type: K, data?: Sample<K>) => ({ vault: VAULT, type, data: data ?? SAMPLES[type] }) as DescribableEvent;

/** What each type says, with the vault's limits and parties known (the vault page, `vaults events`). */
const EXPECTED: Record<VaultEventType, string> = {
  VaultCreated: "Vault 0x1234…5678 created: 10,000.00 USDC, max drawdown 10%, daily 5%, trader's share 20%, until 2027-01-01 00:00 UTC (on a breach: flatten)",
  BalanceUpdated: "Balance 9,412.50 USDC, drawdown 5.87% (max 10%)",
  Paused: "Vault 0x1234…5678 paused: the daily drawdown limit (5%) reached",
  Unpaused: "Vault 0x1234…5678 unpaused: trading again",
  Closed: "Vault 0x1234…5678 closed: final balance 10,500.00 USDC, profit 500.00 USDC: 100.00 to the trader, 400.00 to the investor",
  Funded: "Escrow funded with 500.00 USDC by the investor",
  Withdrawn: "Withdrawn: 100.00 USDC to the trader",
  Fill: "Sold 0.1 BTC at 54,000.5, PnL 99.90 USDC (fee 2.430022 USDC)",
  BalanceMismatch: "First reading 9,000.00 USDC, not the initial balance of 10,000.00 USDC",
  OrdersCanceled: "Orders canceled: 2",
  Flattened: "Flattened: 2 positions closed (BTC 0.1 at 53,001; ETH -1 at 3,000.25), 1 order canceled; left open below the exchange's minimum order: SOL 0.01 (1.40 USDC)",
  AccountModeChanged: "Account mode changed from default to unifiedAccount, which the oracle cannot value: the vault is paused",
  EnforcementFailing: "Enforcement failing since 2026-12-31 23:00 UTC: the agent is not approved",
  DeadlineApproaching: "Vault 0x1234…5678 reaches its deal deadline in 23 hours (2027-01-01 00:00 UTC): the daemon closes it then and settles the shares",
  StopFailed: "Vault 0x1234…5678: the SOL stop-loss at 140 fired but did not fill (no fill within the slippage bound); the daemon is closing 2 SOL at market",
  StopFilled: "Vault 0x1234…5678: the SOL stop-loss at 140 held: closed 2 SOL at 126.05 after 2 attempts",
  Liquidated: "Vault 0x1234…5678: the exchange liquidated 1.5 ETH at 2,800.1 (mark 2,800), a loss of 310.50 USDC",
  Deleveraged: "Vault 0x1234…5678: the exchange auto-deleveraged 0.01 BTC at 61,000, a gain of 12.25 USDC",
  LimitNear: "Vault 0x1234…5678: daily drawdown 4.01% is 80% of its limit of 5%; at the limit the vault pauses",
};

test("every event type in the one list has a description, and nothing else does", () => {
  assert.equal([...DESCRIBED_TYPES].sort(), [...VAULT_EVENT_TYPES].sort());
  assert.equal(Object.keys(SAMPLES).sort(), [...VAULT_EVENT_TYPES].sort());
});

test("each type's sentence, title and figures, from the event exactly as the API renders it", () => {
  let id = 1;
  for (const type of VAULT_EVENT_TYPES) {
    // The sample is a real API event: the response schema accepts it.
    vaultEvent.parse({ id: id++, vault: VAULT, type, time: DEADLINE - 7200, txHash: null, blockNumber: null, data: SAMPLES[type] });
    const d = describeEvent(event(type), LIMITS);
    assert.is(d.sentence, EXPECTED[type], type);
    assert.ok(d.title.length > 0 && d.title !== type.toLowerCase(), type);
    assert.ok(d.figures.length > 0, `${type} has figures`);
    for (const f of d.figures) assert.ok(f.label && f.value !== undefined && !/undefined|NaN|\[object/.test(f.value), `${type}: ${JSON.stringify(f)}`);
  }
});

test("each user notice's sentence says what to do, from data its schema accepts", () => {
  const notices: DescribableNotice[] = [
    { type: "ProposalSigned", user: TOM, data: { proposal: 7, signedBy: IVY, role: "investor", investor: IVY, trader: TOM, initialBalance: "10000", dealDeadline: DEADLINE, validUntil: DEADLINE - 86_400 } },
    { type: "AgentExpiring", user: IVY, data: { agent: OPERATOR, account: IVY, vault: VAULT, validUntil: DEADLINE, daysLeft: 6 } },
    { type: "AgentLapsed", user: IVY, data: { agent: OPERATOR, account: IVY, vault: null, validUntil: DEADLINE } },
    { type: "StopFailed", user: TOM, data: { account: TOM, symbol: "SOL", kind: "tp", triggerPrice: "160", size: "1", orderId: null, reason: "rejected" } },
    { type: "StopFilled", user: TOM, data: { account: TOM, symbol: "SOL", kind: "tp", triggerPrice: "160", size: "1", price: "159.9", orderId: 3, attempts: 1 } },
    { type: "Liquidated", user: TOM, data: { account: TOM, tradeId: "1", symbol: "BTC", side: "sell", size: "0.1", price: "50000", loss: "1000" } },
    { type: "Deleveraged", user: TOM, data: { account: TOM, tradeId: "2", symbol: "BTC", side: "buy", size: "0.1", price: "50000", loss: "5" } },
  ];
  assert.equal(notices.map((n) => n.type), [...USER_NOTICE_TYPES]);
  for (const n of notices) userNoticeData[n.type].parse(n.data);
  assert.equal(notices.map((n) => describeNotice(n).sentence), [
    "The investor 0x1479…9325 signed proposal #7 (10,000.00 USDC until 2027-01-01 00:00 UTC): sign it before 2026-12-31 00:00 UTC to deploy the vault (npx tradevault proposals accept 7)",
    "The agent key trading vault 0x1234…5678 expires in 6 days (2027-01-01 00:00 UTC): approve its successor (npx tradevault agent approve)",
    "The agent key trading account 0x1479…9325 expired at 2027-01-01 00:00 UTC: no order can be placed until a new one is approved (npx tradevault agent approve)",
    "Account 0x2546…Ec30: the SOL take-profit at 160 fired but did not fill (rejected); the daemon is closing 1 SOL at market",
    "Account 0x2546…Ec30: the SOL take-profit at 160 held: closed 1 SOL at 159.9",
    "Account 0x2546…Ec30: the exchange liquidated 0.1 BTC at 50,000, a loss of 1,000.00 USDC",
    "Account 0x2546…Ec30: the exchange auto-deleveraged 0.1 BTC at 50,000, a loss of 5.00 USDC",
  ]);
});

test("a pause says which limit in words, with the drawdown of the reading that paused it", () => {
  const withReading: EventContext = { ...LIMITS, reading: { drawdown: 11.5, dailyDrawdown: 5.3 } };
  const paused = (reason: number) => describeEvent(event("Paused", { reason, maxDrawdown: (reason & 1) > 0, dailyDrawdown: (reason & 2) > 0 }), withReading);
  assert.is(paused(2).sentence, "Vault 0x1234…5678 paused: daily drawdown 5.3% (limit 5%)");
  assert.is(paused(1).sentence, "Vault 0x1234…5678 paused: drawdown 11.5% (max 10%)");
  assert.is(paused(3).sentence, "Vault 0x1234…5678 paused: both limits, drawdown 11.5% (max 10%) and daily drawdown 5.3% (limit 5%)");
  assert.is(paused(3).figures[0]!.value, "both limits");
  const underPolicy = describeEvent(event("Paused", { reason: 2, maxDrawdown: false, dailyDrawdown: true }), { ...withReading, vault: { ...LIMITS.vault!, breachPolicy: "reduce-only" } });
  assert.match(underPolicy.sentence, /\(limit 5%\)\. Policy reduce-only: orders that are not reduce-only canceled; reduce-only orders stay/);
  assert.equal(underPolicy.figures.at(-1), { label: "on a breach", value: "reduce-only" });
  assert.is(paused(4).sentence, "Vault 0x1234…5678 paused by the operator: its exchange account left the standard margin modes, so its balance cannot be valued");
  // Without what the caller knows, the figures are left out rather than guessed.
  assert.is(describeEvent(event("Paused", { reason: 3, maxDrawdown: true, dailyDrawdown: true })).sentence,
    "Vault 0x1234…5678 paused: both limits, the max drawdown limit reached and the daily drawdown limit reached");
  assert.is(describeEvent(event("BalanceUpdated")).sentence, "Balance 9,412.50 USDC, drawdown 5.87%");
  assert.is(describeEvent(event("Withdrawn")).sentence, "Withdrawn: 100.00 USDC to 0x2546…Ec30");
});

test("the narrator carries the reading and the created limits along a list or a stream", () => {
  const tell = narrator();
  tell(event("VaultCreated"));
  const reading = tell(event("BalanceUpdated", { ...SAMPLES.BalanceUpdated, balance: "9470", drawdown: 5.3, dailyDrawdown: 5.3 }));
  assert.is(reading.sentence, "Balance 9,470.00 USDC, drawdown 5.3% (max 10%), daily 5.3% (limit 5%)");
  assert.is(tell(event("Paused")).sentence,
    "Vault 0x1234…5678 paused: daily drawdown 5.3% (limit 5%). Policy flatten: every resting order canceled and every position closed at once (its stops last until it is closed); then paused",
    "the policy the vault was created with says what happens now");
  // Another vault's pause learns nothing from this vault's reading.
  assert.is(tell({ ...event("Paused"), vault: IVY } as DescribableEvent).sentence, "Vault 0x1479…9325 paused: the daily drawdown limit reached");
  // A stream message is the same event, flattened.
  const live = fromStream({ id: 9, vault: VAULT, type: "Funded", time: 1, ...SAMPLES.Funded });
  assert.equal(live.data, SAMPLES.Funded);
  assert.is(tell(live).sentence, "Escrow funded with 500.00 USDC by the investor");
});

test("losses, fills without PnL, a close's flatten, a first mode read", () => {
  assert.is(describeEvent(event("Closed", { ...SAMPLES.Closed, finalBalance: "9700", profit: "-300", traderShare: "0", investorShare: "-300" })).sentence,
    "Vault 0x1234…5678 closed: final balance 9,700.00 USDC, loss 300.00 USDC, the investor's");
  assert.is(describeEvent(event("Fill", { ...SAMPLES.Fill, side: "buy", pnl: "0", size: "0.00000001" })).sentence,
    "Bought 0.00000001 BTC at 54,000.5 (fee 2.430022 USDC)");
  assert.is(describeEvent(event("Flattened", { reason: "close", canceledOrders: 0, positions: [] })).sentence, "Flattened for the close: no position to close");
  assert.is(describeEvent(event("AccountModeChanged", { from: null, to: "default", valued: true })).sentence, "Account mode read: default");
  assert.is(describeEvent(event("OrdersCanceled", { reason: "close", count: 1 })).sentence, "Orders canceled: 1 (close)");
  assert.is(describeEvent(event("OrdersCanceled", { reason: "paused", count: 0 })).sentence, "No resting order to cancel");
});

test("an event type this build does not know is told by its name and fields, not dropped", () => {
  const d = describeEvent({ vault: VAULT, type: "SomethingNew", data: { a: 1, b: { c: 2 } } } as unknown as DescribableEvent);
  assert.equal(d, { title: "SomethingNew", sentence: 'SomethingNew: a 1, b {"c":2}', figures: [{ label: "a", value: "1" }, { label: "b", value: '{"c":2}' }] });
});

test("figures: grouped and USDC text exactly as given, exponents expanded", () => {
  assert.is(grouped("1234567.891"), "1,234,567.891");
  assert.is(grouped(-1234.5), "-1,234.5");
  assert.is(usdcText("0.000001"), "0.000001");
  assert.is(usdcText("-300"), "-300.00");
  assert.is(usdcText(12345678.5), "12,345,678.50");
  assert.is(plainDecimal(1e-7), "0.0000001");
  assert.is(plainDecimal(1.5e21), "1500000000000000000000");
  assert.is(plainDecimal("2.50e-3"), "0.0025");
});

test.run();
