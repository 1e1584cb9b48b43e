// What the passing of time does, run by the sim's housekeeping timer and by tick(): hourly funding at
// the configured rate, and the dead man's switch (scheduleCancel) when its time comes. The caller holds
// the transaction.
import { F, exact, roundUsd, usd } from "../num.js";
import { syntheticHash, markOf, type EngineCtx } from "./context.js";
import { changeOrder } from "./orders.js";

const HOUR = 60 * 60 * 1000;
/** After a long stop, only this many missed hours are settled (at today's marks). */
const MAX_MISSED_HOURS = 24;
const LAST_FUNDING = "funding:last";

/** Settles every whole hour passed since the last settlement; returns how many were settled. */
export function settleFunding(ctx: EngineCtx): number {
  const hour = Math.floor(ctx.now() / HOUR) * HOUR;
  const last = ctx.repo.getMeta(LAST_FUNDING);
  ctx.repo.setMeta(LAST_FUNDING, String(hour));
  // A fresh sim starts its first funding period now: nothing is owed for the time before it existed.
  if (last === undefined) return 0;
  let settled = 0;
  for (let t = Math.max(Number(last) + HOUR, hour - (MAX_MISSED_HOURS - 1) * HOUR); t <= hour; t += HOUR) {
    fundOneHour(ctx, t);
    settled++;
  }
  return settled;
}

function fundOneHour(ctx: EngineCtx, time: number): void {
  const rate = F.parse(ctx.cfg.fundingRate);
  for (const m of ctx.markets.all) ctx.repo.addFundingRate(m.name, time, rate);
  if (rate === 0n) return;
  for (const pos of ctx.repo.allPositions()) {
    const mark = markOf(ctx, ctx.markets.byCoin(pos.coin)!);
    // Positive payment = paid by the position (a long when the rate is positive).
    const paid = roundUsd(F.mul(F.mul(pos.szi, mark, "half-up"), rate, "half-up"));
    if (paid === 0n) continue;
    // An isolated position pays (or receives) funding from its own margin, like its losses.
    const isolated = ctx.repo.isolatedMargin(pos.user, pos.coin);
    if (isolated !== undefined) ctx.repo.setIsolatedMargin(pos.user, pos.coin, isolated - paid);
    else ctx.repo.setUsdc(pos.user, ctx.repo.getAccount(pos.user)!.usdc - paid);
    const totals = ctx.repo.fundingTotals(pos.user, pos.coin);
    ctx.repo.setFundingTotals(pos.user, pos.coin, {
      allTime: totals.allTime + paid, sinceOpen: totals.sinceOpen + paid, sinceChange: totals.sinceChange + paid,
    });
    const delta = { coin: pos.coin, usdc: usd(-paid), szi: exact(pos.szi), fundingRate: F.format(rate), nSamples: null };
    ctx.repo.insertLedger(pos.user, {
      time, hash: syntheticHash(`funding:${pos.user}:${pos.coin}:${time}`), delta: { type: "funding", ...delta },
    });
    ctx.emit({ kind: "userEvent", user: pos.user, event: { funding: delta } });
  }
}

// ---- scheduleCancel ------------------------------------------------------------------------------

const DAY = 24 * HOUR;
const MAX_FIRINGS_PER_DAY = 10;
const MIN_LEAD_MS = 5000;
const scheduleKey = (user: string) => `schedule-cancel:${user}`;
const firingsKey = (user: string, time: number) => `schedule-cancel-fired:${user}:${Math.floor(time / DAY)}`;

/** Arms (time given) or disarms the user's dead man's switch; returns the refusal text, if any. */
export function scheduleCancel(ctx: EngineCtx, user: string, time: number | undefined): string | undefined {
  const required = F.parse(ctx.cfg.scheduleCancelMinVolumeUsd);
  const traded = ctx.repo.volume(user);
  if (traded < required) {
    return `Cannot set scheduled cancel time until enough volume traded. Required: $${F.format(required, 0, "down")}. Traded: $${F.format(traded, 2, "down")}.`;
  }
  if (time === undefined) {
    ctx.repo.setMeta(scheduleKey(user), "");
    return undefined;
  }
  const now = ctx.now();
  if (time < now + MIN_LEAD_MS) return "Scheduled cancel time too early, must be at least 5 seconds from now.";
  if (firings(ctx, user, now) >= MAX_FIRINGS_PER_DAY) return "Too many scheduled cancels today; try again tomorrow (UTC).";
  ctx.repo.setMeta(scheduleKey(user), String(time));
  return undefined;
}

function firings(ctx: EngineCtx, user: string, now: number): number {
  return Number(ctx.repo.getMeta(firingsKey(user, now)) ?? 0);
}

/** Fires every armed switch whose time has come: all the user's open orders end "scheduledCancel". */
export function fireScheduledCancels(ctx: EngineCtx, users: readonly string[]): string[] {
  const now = ctx.now();
  const fired: string[] = [];
  for (const user of users) {
    const at = ctx.repo.getMeta(scheduleKey(user));
    if (!at || Number(at) > now) continue;
    for (const o of ctx.repo.openOrdersOf(user)) changeOrder(ctx, o, o.sz, "scheduledCancel");
    ctx.repo.setMeta(scheduleKey(user), "");
    ctx.repo.setMeta(firingsKey(user, now), String(firings(ctx, user, now) + 1));
    fired.push(user);
  }
  return fired;
}

/** Users with an armed switch, to keep the timer's scan small. */
export function armedUsers(ctx: EngineCtx): string[] {
  return ctx.repo.metaKeysWithPrefix("schedule-cancel:")
    .filter((k) => ctx.repo.getMeta(k))
    .map((k) => k.slice("schedule-cancel:".length));
}
