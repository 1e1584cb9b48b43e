/// <reference lib="dom" />
// The vault page's events in a real browser against a real daemon: readings that say the same, one
// each oracle cycle, fold into one line with their count and time span, live and when the page is
// read again; a reading that differs, the pause and every other event keep lines of their own.
import * as assert from "uvu/assert";
import type { Page } from "playwright-core";
import { waitUntil } from "../helpers/util.js";
import { go } from "./helpers/pages.js";
import { vaultPageSuite, type VaultPageCtx } from "./helpers/vault-parties.js";

const t = vaultPageSuite("event folding");

/** The list as the page shows it, newest first: each line's type and how many events it stands for. */
const lines = (page: Page) => page.locator("#vault-events li").evaluateAll((items) =>
  items.map((li) => ({ type: (li as HTMLElement).dataset.type!, count: Number((li as HTMLElement).dataset.count), text: li.textContent! })));

/** The vault's stored events, newest first, as the API lists them. */
async function stored(ctx: VaultPageCtx): Promise<Array<{ type: string; data: Record<string, unknown> }>> {
  const r = await ctx.d.http.get(`/api/vaults/${ctx.p.vault}/events?limit=1000`, { token: ctx.p.api.ivy.token });
  assert.is(r.status, 200, JSON.stringify(r.body));
  return r.body.data.events;
}

/** The stored events folded by the rule itself: a run of readings with equal figures is one line. */
function folded(events: Array<{ type: string; data: Record<string, unknown> }>): Array<{ type: string; count: number }> {
  const key = (e: { type: string; data: Record<string, unknown> }) =>
    e.type === "BalanceUpdated" ? JSON.stringify({ ...e.data, observedAt: undefined }) : null;
  const out: Array<{ type: string; count: number; key: string | null }> = [];
  for (const e of events) {
    const last = out.at(-1);
    if (last && key(e) !== null && last.key === key(e)) last.count += 1;
    else out.push({ type: e.type, count: 1, key: key(e) });
  }
  return out.map(({ type, count }) => ({ type, count }));
}

const shape = (ls: Array<{ type: string; count: number }>) => ls.map(({ type, count }) => ({ type, count }));

t("alike readings fold into one line with their count and span; the pause stands out among them", async (ctx) => {
  const { d, p } = ctx;
  const { ivy } = p;
  for (let i = 0; i < 3; i++) await d.daemon.oracle.cycle(); // nothing moves: readings alike (with the vault's first)
  const alike = (await stored(ctx)).filter((e) => e.type === "BalanceUpdated").length;
  assert.ok(alike >= 3, String(alike));
  await go(ivy, `#vault/${p.vault}`, "#vault-events li[data-type=BalanceUpdated]");
  const first = await lines(ivy.page);
  assert.equal(shape(first).filter((l) => l.type === "BalanceUpdated"), [{ type: "BalanceUpdated", count: alike }], JSON.stringify(first));
  const balance = first.find((l) => l.type === "BalanceUpdated")!;
  assert.match(balance.text, new RegExp(`^\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d – (\\d{4}-\\d\\d-\\d\\d )?\\d\\d:\\d\\d:\\d\\d UTC Balance Balance 10,000\\.00 USDC, drawdown 0% \\(max 10%\\) \\(${alike} readings alike\\)$`), balance.text);

  // Live: another reading alike joins the line; a long position and a fall pause the vault.
  await d.daemon.oracle.cycle();
  await ivy.page.waitForSelector(`#vault-events li.live[data-type=BalanceUpdated][data-count='${alike + 1}']`);
  const bought = await d.http.post("/api/trade", { symbol: "BTC", side: "buy", size: 0.1, vaultAddress: p.vault }, { token: p.api.tom.token });
  assert.is(bought.status, 200, JSON.stringify(bought.body));
  d.daemon.sim!.setPrice("BTC", "53000"); // about -700 on 10,000: past the 5% daily limit
  await d.daemon.oracle.cycle();
  // The pause's own events (the policy held) come first, then three readings alike again.
  await waitUntil(async () => (await ctx.d.http.get(`/api/vaults/${p.vault}`, { token: p.api.ivy.token })).body.data.vault.enforcement?.state === "holds",
    { slowMs: 30_000, what: "the paused vault holding its policy" });
  for (let i = 0; i < 3; i++) await d.daemon.oracle.cycle();
  const events = await stored(ctx);
  assert.ok(events.some((e) => e.type === "Paused"), events.map((e) => e.type).join());
  const expected = folded(events);
  await ivy.page.waitForFunction((n) => document.querySelectorAll("#vault-events li").length === n, expected.length);
  assert.equal(shape(await lines(ivy.page)), expected, "live, as the rule folds the stored events");
  // The readings after the pause are one line above it, the pause a line of its own near the top.
  const at = expected.findIndex((l) => l.type === "Paused");
  assert.ok(at > 0 && at <= 4, JSON.stringify(expected));
  assert.equal(expected[0], { type: "BalanceUpdated", count: 3 });
  assert.ok(expected.every((l) => l.type === "BalanceUpdated" || l.count === 1), "nothing else folds");

  // Read again from the stored events: the same lines.
  await go(ivy, "#vaults", "#vaults");
  await go(ivy, `#vault/${p.vault}`, "#vault-events li[data-type=Paused]");
  assert.equal(shape(await lines(ivy.page)), expected);
  assert.equal(ivy.problems, [], "no page errors, no CSP violations");
});

t.run();
