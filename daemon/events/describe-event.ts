// One vault event in words: a title, a sentence a person wants to read ("Vault 0x12…ab paused: daily
// drawdown 5.3% (limit 5%)") and its figures, for the CLI, the dashboard and alerts alike. It takes
// the event as the API renders it (`vaultEvent` in http/responses.ts: USDC as decimal text, limits
// and drawdowns in percent). A figure the event does not carry (a Paused event names which limit,
// not the drawdown or the limit itself) comes from what the caller knows: the vault's limits and
// parties (the vault detail) and the reading at the event (`narrator` tracks both along a list or a
// stream); without them the sentence leaves the figure out, never guesses it.
// Plain module: its only run-time import is figures.ts, so the CLI and the dashboard's bundle
// include it as they include event-types.ts (docs/design.md section 10).
import type { VaultEvent } from "../http/responses.js";
import type { VaultEventType } from "./event-types.js";
import { BREACH_POLICY_TABLE, type BreachPolicy } from "../vaults/breach-policies.js";
import { count, grouped, percentText, plainDecimal, shortAddress, usdcText, utcTime } from "../lib/figures.js";
import { tellForced, tellStopFailed, tellStopFilled, type Figure, type Told } from "./describe-protection.js";

export type { Figure } from "./describe-protection.js";

export interface EventDescription {
  title: string;
  sentence: string;
  figures: Figure[];
}

type DataOf<K extends VaultEventType> = Extract<VaultEvent, { type: K }>["data"];

/** An event as GET /api/vaults/:address/events renders it (only what a description needs). */
export type DescribableEvent = { [K in VaultEventType]: { vault: string; type: K; data: DataOf<K> } }[VaultEventType];

/** What the caller knows of the vault (its detail's limits and parties) and its reading at the event. */
export interface EventContext {
  vault?: { maxDrawdown: number; dailyDrawdown: number; investor?: string; trader?: string; breachPolicy?: BreachPolicy };
  reading?: { drawdown: number; dailyDrawdown: number };
}

interface Entry<K extends VaultEventType> {
  title: string;
  tell(data: DataOf<K>, vault: string, ctx: EventContext): Told;
}

const fig = (label: string, value: string): Figure => ({ label, value });
const usdc = (v: string) => `${usdcText(v)} USDC`;
const isNegative = (v: string) => v.trim().startsWith("-") && /[1-9]/.test(v);
const vaultName = (vault: string) => `Vault ${shortAddress(vault)}`;

/** "the investor", "the trader", or the short address when the caller did not say who the parties are. */
function who(address: string, ctx: EventContext): string {
  const a = address.toLowerCase();
  if (ctx.vault?.investor?.toLowerCase() === a) return "the investor";
  if (ctx.vault?.trader?.toLowerCase() === a) return "the trader";
  return shortAddress(address);
}

/** "drawdown 5.9% (max 10%)": a drawdown figure against its limit, when the limit is known. */
function against(name: string, value: number, limitWord: string, limit: number | undefined): string {
  return `${name} ${percentText(value)}${limit === undefined ? "" : ` (${limitWord} ${percentText(limit)})`}`;
}

/** One breached limit: the drawdown that breached it when the reading is known, else the limit itself. */
function breach(kind: "max" | "daily", ctx: EventContext): string {
  const name = kind === "max" ? "drawdown" : "daily drawdown";
  const limit = kind === "max" ? ctx.vault?.maxDrawdown : ctx.vault?.dailyDrawdown;
  const value = kind === "max" ? ctx.reading?.drawdown : ctx.reading?.dailyDrawdown;
  if (value !== undefined) return against(name, value, kind === "max" ? "max" : "limit", limit);
  return `the ${kind === "max" ? "max" : "daily"} drawdown limit${limit === undefined ? "" : ` (${percentText(limit)})`} reached`;
}

const PAUSE_REASONS: Record<number, string> = { 1: "max drawdown", 2: "daily drawdown", 3: "both limits", 4: "the exchange account's mode" };

function tellPaused(data: DataOf<"Paused">, vault: string, ctx: EventContext): Told {
  const figures = [fig("reason", PAUSE_REASONS[data.reason] ?? String(data.reason))];
  if (data.reason & 4) {
    return [`${vaultName(vault)} paused by the operator: its exchange account left the standard margin modes, so its balance cannot be valued`, figures];
  }
  const max = (data.reason & 1) !== 0;
  const daily = (data.reason & 2) !== 0;
  if (ctx.reading && max) figures.push(fig("drawdown", percentText(ctx.reading.drawdown)));
  if (ctx.reading && daily) figures.push(fig("daily drawdown", percentText(ctx.reading.dailyDrawdown)));
  if (ctx.vault && max) figures.push(fig("max drawdown limit", percentText(ctx.vault.maxDrawdown)));
  if (ctx.vault && daily) figures.push(fig("daily drawdown limit", percentText(ctx.vault.dailyDrawdown)));
  const why = max && daily ? `both limits, ${breach("max", ctx)} and ${breach("daily", ctx)}` : max ? breach("max", ctx) : daily ? breach("daily", ctx) : "";
  // What happens now, and what is left to do: the policy both parties signed.
  const policy = BREACH_POLICY_TABLE.find((p) => p.name === ctx.vault?.breachPolicy);
  if (policy) figures.push(fig("on a breach", policy.name));
  return [`${vaultName(vault)} paused${why ? `: ${why}` : ""}${policy ? `. Policy ${policy.name}: ${policy.summary}` : ""}`, figures];
}

function tellBalance(d: DataOf<"BalanceUpdated">, _vault: string, ctx: EventContext): Told {
  const daily = d.dailyDrawdown > 0 ? `, ${against("daily", d.dailyDrawdown, "limit", ctx.vault?.dailyDrawdown)}` : "";
  return [`Balance ${usdc(d.balance)}, ${against("drawdown", d.drawdown, "max", ctx.vault?.maxDrawdown)}${daily}`, [
    fig("balance", usdc(d.balance)), fig("peak", usdc(d.peakBalance)), fig("day start", usdc(d.dayStartBalance)),
    fig("drawdown", percentText(d.drawdown)), fig("daily drawdown", percentText(d.dailyDrawdown)), fig("observed", utcTime(d.observedAt)),
  ]];
}

function tellClosed(d: DataOf<"Closed">, vault: string): Told {
  const split = isNegative(d.profit)
    ? `loss ${usdc(d.profit.replace("-", ""))}, the investor's`
    : `profit ${usdc(d.profit)}: ${usdcText(d.traderShare)} to the trader, ${usdcText(d.investorShare)} to the investor`;
  return [`${vaultName(vault)} closed: final balance ${usdc(d.finalBalance)}, ${split}`, [
    fig("final balance", usdc(d.finalBalance)), fig("profit", usdc(d.profit)), fig("trader's share", usdc(d.traderShare)),
    fig("investor's share", usdc(d.investorShare)), fig("sent by", d.by),
  ]];
}

function tellFill(d: DataOf<"Fill">): Told {
  const pnl = /[1-9]/.test(d.pnl) ? `, PnL ${usdc(d.pnl)}` : "";
  return [`${d.side === "buy" ? "Bought" : "Sold"} ${plainDecimal(d.size)} ${d.symbol} at ${grouped(d.price)}${pnl} (fee ${usdc(d.fee)})`, [
    fig("side", d.side), fig("size", plainDecimal(d.size)), fig("symbol", d.symbol), fig("price", grouped(d.price)),
    fig("realized PnL", usdc(d.pnl)), fig("fee", usdc(d.fee)), fig("order", String(d.orderId)),
  ]];
}

function tellFlattened(d: DataOf<"Flattened">): Told {
  const closed = d.positions.map((p) => `${p.symbol} ${plainDecimal(p.size)}${p.averagePrice === null ? "" : ` at ${grouped(p.averagePrice)}`}`);
  const parts = [d.positions.length === 0 ? "no position to close" : `${count(d.positions.length, "position")} closed (${closed.join("; ")})`];
  if (d.canceledOrders > 0) parts.push(`${count(d.canceledOrders, "order")} canceled`);
  const dust = (d.dust ?? []).map((p) => `${p.symbol} ${plainDecimal(p.size)} (${usdc(p.value)})`);
  const left = dust.length ? `; left open below the exchange's minimum order: ${dust.join("; ")}` : "";
  const figures = [fig("positions closed", String(d.positions.length)), fig("orders canceled", String(d.canceledOrders))];
  if (dust.length) figures.push(fig("left open", dust.join("; ")));
  if (d.attempts !== undefined) figures.push(fig("attempts", String(d.attempts)));
  return [`Flattened${d.reason === "close" ? " for the close" : ""}: ${parts.join(", ")}${left}`, figures];
}

/** Typed by the one list of event types: a type added there without its entry here does not compile. */
const ENTRIES: { [K in VaultEventType]: Entry<K> } = {
  VaultCreated: {
    title: "Vault created",
    tell: (d, vault) => [
      `${vaultName(vault)} created: ${usdc(d.initialBalance)}, max drawdown ${percentText(d.maxDrawdown)}, daily ${percentText(d.dailyDrawdown)}, ` +
        `trader's share ${percentText(d.traderShare)}, until ${utcTime(d.dealDeadline)} (on a breach: ${d.breachPolicy})`,
      [fig("initial balance", usdc(d.initialBalance)), fig("investor", d.investor), fig("trader", d.trader), fig("exchange account", d.exchangeAccount),
        fig("max drawdown limit", percentText(d.maxDrawdown)), fig("daily drawdown limit", percentText(d.dailyDrawdown)),
        fig("trader's share", percentText(d.traderShare)), fig("deadline", utcTime(d.dealDeadline)), fig("on a breach", d.breachPolicy)],
    ],
  },
  BalanceUpdated: { title: "Balance", tell: tellBalance },
  Paused: { title: "Paused", tell: tellPaused },
  Unpaused: { title: "Unpaused", tell: (d, vault) => [`${vaultName(vault)} unpaused: trading again`, [fig("sent by", d.by)]] },
  Closed: { title: "Closed", tell: tellClosed },
  Funded: {
    title: "Escrow funded",
    tell: (d, _vault, ctx) => [`Escrow funded with ${usdc(d.amount)} by ${who(d.from, ctx)}`, [fig("amount", usdc(d.amount)), fig("from", d.from)]],
  },
  Withdrawn: {
    title: "Withdrawn",
    tell: (d, _vault, ctx) => [`Withdrawn: ${usdc(d.amount)} to ${who(d.party, ctx)}`, [fig("amount", usdc(d.amount)), fig("to", d.party)]],
  },
  Fill: { title: "Fill", tell: tellFill },
  BalanceMismatch: {
    title: "Balance mismatch",
    tell: (d) => [`First reading ${usdc(d.observed)}, not the initial balance of ${usdc(d.expected)}`,
      [fig("observed", usdc(d.observed)), fig("initial balance", usdc(d.expected))]],
  },
  OrdersCanceled: {
    title: "Orders canceled",
    // A pause's outcome with nothing resting still says the policy holds, not "0".
    tell: (d) => [`${Number(d.count) === 0 ? "No resting order to cancel" : `Orders canceled: ${d.count}`}${d.reason === "paused" ? "" : ` (${d.reason})`}`,
      [fig("orders", String(d.count)), fig("reason", d.reason), ...(d.attempts === undefined ? [] : [fig("attempts", String(d.attempts))])]],
  },
  Flattened: { title: "Flattened", tell: tellFlattened },
  AccountModeChanged: {
    title: "Account mode changed",
    tell: (d) => [
      `${d.from === null ? `Account mode read: ${d.to}` : `Account mode changed from ${d.from} to ${d.to}`}${d.valued ? "" : ", which the oracle cannot value: the vault is paused"}`,
      [fig("from", d.from ?? "-"), fig("to", d.to), fig("valued", d.valued ? "yes" : "no")],
    ],
  },
  EnforcementFailing: {
    title: "Enforcement failing",
    tell: (d) => [`Enforcement failing since ${utcTime(d.since)}: ${d.error}`,
      [fig("breach policy", d.policy), fig("since", utcTime(d.since)), fig("attempts", String(d.attempts)), fig("error", d.error)]],
  },
  DeadlineApproaching: {
    title: "Deadline approaching",
    tell: (d, vault) => [
      `${vaultName(vault)} reaches its deal deadline in ${count(d.hoursLeft, "hour")} (${utcTime(d.deadline)}): the daemon closes it then and settles the shares`,
      [fig("deadline", utcTime(d.deadline)), fig("hours left", String(d.hoursLeft))],
    ],
  },
  StopFailed: { title: "Stop did not fill", tell: (d, vault) => tellStopFailed(d, vaultName(vault)) },
  StopFilled: { title: "Stop held", tell: (d, vault) => tellStopFilled(d, vaultName(vault)) },
  Liquidated: { title: "Liquidated", tell: (d, vault) => tellForced(d, vaultName(vault), "liquidated") },
  Deleveraged: { title: "Auto-deleveraged", tell: (d, vault) => tellForced(d, vaultName(vault), "auto-deleveraged") },
  LimitNear: {
    title: "Limit near",
    tell: (d, vault) => {
      const name = d.limit === "max" ? "drawdown" : "daily drawdown";
      return [
        `${vaultName(vault)}: ${name} ${percentText(d.drawdown)} is ${d.level}% of its limit of ${percentText(d.limitPercent)}; ` +
          `at the limit the vault pauses`,
        [fig("limit", d.limit === "max" ? "max drawdown" : "daily drawdown"), fig(name, percentText(d.drawdown)),
          fig("limit at", percentText(d.limitPercent)), fig("reached", `${d.level}% of the limit`)],
      ];
    },
  },
};

/** The event types this module describes (a test holds them equal to VAULT_EVENT_TYPES). */
export const DESCRIBED_TYPES = Object.keys(ENTRIES) as VaultEventType[];

/** An event of a type this build does not know (a newer daemon): its name and its fields as they are. */
function unknownEvent(type: string, data: unknown): EventDescription {
  const figures = Object.entries((data ?? {}) as Record<string, unknown>)
    .map(([label, v]) => fig(label, typeof v === "object" && v !== null ? JSON.stringify(v) : String(v)));
  return { title: type, sentence: `${type}${figures.length ? `: ${figures.map((f) => `${f.label} ${f.value}`).join(", ")}` : ""}`, figures };
}

export function describeEvent(event: DescribableEvent, ctx: EventContext = {}): EventDescription {
  const entry = (ENTRIES as Record<string, Entry<VaultEventType> | undefined>)[event.type];
  if (!entry) return unknownEvent(event.type, event.data);
  const [sentence, figures] = entry.tell(event.data as never, event.vault, ctx);
  return { title: entry.title, sentence, figures };
}

/** A Server-Sent Events message (`{id, vault, type, time, ...data}`) as the event the API lists. */
export function fromStream(message: { id: number; vault: string; type: string; time: number; [field: string]: unknown }) {
  const { id, vault, type, time, ...data } = message;
  return { id, vault, type, time, data } as { id: number; time: number } & DescribableEvent;
}

/**
 * Describes events in the order they happened (a list oldest first, or a stream), remembering per
 * vault its latest reading and the limits its VaultCreated named, so a Paused event is told with the
 * drawdown that paused it. `vault` facts given to `describe` win over what it learned.
 */
export function narrator() {
  const readings = new Map<string, EventContext["reading"]>();
  const limits = new Map<string, NonNullable<EventContext["vault"]>>();
  return (event: DescribableEvent, vault?: EventContext["vault"]): EventDescription => {
    const key = event.vault.toLowerCase();
    if (event.type === "VaultCreated") {
      const d = event.data;
      limits.set(key, { maxDrawdown: d.maxDrawdown, dailyDrawdown: d.dailyDrawdown, investor: d.investor, trader: d.trader, breachPolicy: d.breachPolicy });
    }
    if (event.type === "BalanceUpdated") readings.set(key, { drawdown: event.data.drawdown, dailyDrawdown: event.data.dailyDrawdown });
    return describeEvent(event, { vault: vault ?? limits.get(key), reading: readings.get(key) });
  };
}
