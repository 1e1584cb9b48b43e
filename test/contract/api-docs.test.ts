// GET /api/docs: Swagger UI from the installed package, in a real (headless) Chromium. It needs no
// session, loads nothing from another origin, renders every operation of /api/openapi.json, and runs
// under a Content-Security-Policy that allows only the daemon's own origin without a single violation.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { launchChromium } from "../browser/helpers/chromium.js";
import { startTestDaemon } from "../helpers/daemon.js";
import { waitUntil } from "../helpers/util.js";

test("the interactive view renders the whole document under a self-only CSP, with no session", async () => {
  const d = await startTestDaemon();
  const browser = await launchChromium();
  try {
    const plain = await fetch(`${d.url}/api/docs`);
    assert.is(plain.status, 200, "no session needed");
    assert.match(plain.headers.get("content-security-policy") ?? "", /^default-src 'self';/);
    const csp = plain.headers.get("content-security-policy") ?? "";
    assert.not.match(csp.replace("img-src 'self' data:;", ""), /unsafe|\*|https?:|data:/, "only 'self' (and data: images)");

    const doc = (await d.http.get("/api/openapi.json")).body;
    const operations = Object.values(doc.paths as Record<string, object>).reduce((n, ops) => n + Object.keys(ops).length, 0);
    const page = await browser.newPage();
    const foreign: string[] = [];
    const refused: string[] = [];
    page.on("request", (r) => {
      if (!r.url().startsWith(d.url) && !r.url().startsWith("data:")) foreign.push(r.url());
    });
    page.on("console", (m) => {
      if (/Content Security Policy|Refused to/i.test(m.text())) refused.push(m.text());
    });
    page.on("pageerror", (e) => refused.push(`page error: ${e.message}`));
    const res = await page.goto(`${d.url}/api/docs`);
    assert.is(res?.status(), 200);
    await waitUntil(async () => (await page.locator(".opblock").count()) === operations, { slowMs: 90_000, what: `${operations} operations rendered` });
    assert.ok(await page.getByText("/api/vaults/{address}/trades").first().isVisible());
    assert.equal(foreign, [], "nothing from another origin");
    assert.equal(refused, [], "no CSP violation or script error");
  } finally {
    await browser.close();
    await d.close();
  }
});

test.run();
