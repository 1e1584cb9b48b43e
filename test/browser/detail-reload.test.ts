/// <reference lib="dom" />
// The vault page reads its detail again after each burst of live events. Those reads can answer out
// of order: a slow one, asked before the vault paused, must not flip the page back to trading after a
// newer one has shown the pause.
import * as assert from "uvu/assert";
import type { Request, Route } from "playwright-core";
import { go } from "./helpers/pages.js";
import { vaultPageSuite } from "./helpers/vault-parties.js";

const t = vaultPageSuite("vault detail reload");

t("a stale read of the detail answering last does not undo the pause the newer one showed", async (ctx) => {
  const { d, p } = ctx;
  const { tom } = p;
  await go(tom, `#vault/${p.vault}`, "#order-form");
  const detailPath = new URL(`/api/vaults/${p.vault}`, d.url).pathname;
  const isDetail = (url: string) => new URL(url).pathname === detailPath;

  // The first read after this point is answered at once by the daemon, but handed to the page only
  // when the test says so; every later read goes through.
  let held: { route: Route; request: Request; body: Buffer; status: number; headers: Record<string, string> } | undefined;
  let seen!: () => void;
  const heldSeen = new Promise<void>((resolve) => (seen = resolve));
  await tom.page.route((url) => isDetail(url.href), async (route, request) => {
    if (held) return route.continue();
    const answer = await route.fetch();
    held = { route, request, body: await answer.body(), status: answer.status(), headers: answer.headers() };
    seen();
  });

  // A reading with no breach: the page reads the detail again, and that read is held (not paused).
  await d.daemon.oracle.cycle();
  await heldSeen;
  assert.is(JSON.parse(held!.body.toString()).data.vault.paused, false);

  // Then a breach: the newer read shows the pause, and the order form goes.
  const bought = await d.http.post("/api/trade", { symbol: "BTC", side: "buy", size: 0.1, vaultAddress: p.vault }, { token: p.api.tom.token });
  assert.is(bought.status, 200, JSON.stringify(bought.body));
  d.daemon.sim!.setPrice("BTC", "53000");
  await d.daemon.oracle.cycle();
  await tom.page.waitForSelector("#order-blocked");

  // The stale answer arrives last; once the page has had it, the pause still shows.
  const handed = tom.page.waitForResponse((r) => r.request() === held!.request);
  await held!.route.fulfill({ status: held!.status, headers: held!.headers, body: held!.body });
  await (await handed).finished();
  await tom.page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  assert.is(await tom.page.locator("#order-blocked").count(), 1, "the pause is still shown");
  assert.is(await tom.page.locator("#order-form").count(), 0, "the stale read did not bring the form back");
  assert.equal(tom.problems, []);
});

t.run();
