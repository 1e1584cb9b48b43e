// The "Build your own frontend" recipes of docs/http-api.md (recipes/frontend.js, verbatim) in a real browser, on
// a page of another site (http://localhost:<port>) calling the daemon at http://127.0.0.1:<port> with
// --cors-origin: sign-in through an injected EIP-1193 wallet, an error read from the envelope, live
// events over a ticket, including the recipe's reconnect (new ticket, resume after the last id), and
// over fetch with the Bearer header.
import { createServer } from "node:http";
import { readFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { getBytes } from "ethers";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { approveAgent, createVault, faucet, fakeClock, party, randomWallet, signIn, startTestDaemon } from "../helpers/daemon.js";
import { freePort, waitUntil } from "../helpers/util.js";
import { launchChromium } from "../browser/helpers/chromium.js";

const RECIPES = readFileSync(new URL("./recipes/frontend.js", import.meta.url), "utf8");

/** A static site on its own origin: one page that loads the recipes, pointed at `api`. */
async function frontendSite(api: string, port: number) {
  const script = RECIPES.replace('const API = "http://127.0.0.1:8420";', `const API = ${JSON.stringify(api)};`);
  const server = createServer((req, res) => {
    if (req.url === "/frontend.js") res.writeHead(200, { "Content-Type": "text/javascript" }).end(script);
    else res.writeHead(200, { "Content-Type": "text/html" }).end('<!doctype html><script src="/frontend.js"></script>');
  });
  await new Promise<void>((r) => server.listen(port, "127.0.0.1", r));
  const origin = `http://localhost:${(server.address() as AddressInfo).port}`;
  return { origin, close: () => new Promise<void>((r) => server.close(() => r())) };
}

test("sign-in, errors and live events from another site, as docs/http-api.md shows them", async () => {
  const wallet = randomWallet();
  const port = await freePort();
  const d = await startTestDaemon({ startOracle: false, clock: fakeClock(Date.now(), { realTime: true }), config: { corsOrigins: [`http://localhost:${port}`] } });
  const site = await frontendSite(d.url, port);
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    // The wallet the way an extension injects it: window.ethereum, the key outside the page.
    await page.exposeFunction("walletSign", (hex: string) => wallet.signMessage(getBytes(hex)));
    await page.addInitScript(`window.ethereum = { request: async ({ method, params }) => {
      if (method === "eth_requestAccounts") return [${JSON.stringify(wallet.address)}];
      if (method === "personal_sign") return walletSign(params[0]);
      throw Object.assign(new Error("unsupported " + method), { code: 4200 });
    } };`);
    const tickets: string[] = [];
    page.on("request", (r) => r.url().endsWith("/api/events/ticket") && tickets.push(r.method()));
    await page.goto(site.origin);

    const me = await page.evaluate("signIn()") as { address: string; message: string };
    assert.is(me.address, wallet.address);
    assert.match(me.message, `${new URL(site.origin).host} wants you to sign in`, "the message names the page's site");

    const err = await page.evaluate(`api("GET", "/api/vaults/0x0000000000000000000000000000000000000001").catch((e) => ({ code: e.code, status: e.status, message: e.message }))`);
    assert.equal(err, { code: "NOT_FOUND", status: 404, message: (err as { message: string }).message });

    await page.evaluate("window.seen = []; openEvents((e) => seen.push(e)).then((s) => (window.firstSource = s))");
    await page.evaluate("window.fetched = []; void streamWithFetch((e) => fetched.push(e))"); // runs on: not awaited
    await waitUntil(() => page.evaluate("window.firstSource?.readyState === 1"), { what: "the ticket stream to open", slowMs: 30_000 });
    const { token } = await signIn(d.http, wallet);
    await faucet(d, wallet.address, 10_000);
    await approveAgent(d.http, token, wallet);
    const vault = await createVault(d, { wallet, token, address: wallet.address }, await party(d));
    await waitUntil(() => page.evaluate(`seen.some((e) => e.type === "VaultCreated" && e.vault === ${JSON.stringify(vault)})`), { what: "VaultCreated in the page", slowMs: 30_000 });
    await waitUntil(() => page.evaluate(`fetched.some((e) => e.type === "VaultCreated")`), { what: "VaultCreated on the Bearer stream", slowMs: 30_000 });

    // The stream fails: the recipe takes a new ticket and resumes after the last event it saw.
    await page.evaluate(`firstSource.dispatchEvent(new Event("error"))`);
    await waitUntil(() => tickets.length === 2, { what: "a second ticket", slowMs: 30_000 });
    await d.daemon.oracle.cycle();
    await waitUntil(() => page.evaluate(`seen.some((e) => e.type === "BalanceUpdated")`), { what: "an event on the resumed stream", slowMs: 30_000 });
    const ids = await page.evaluate("seen.map((e) => e.id)") as number[];
    assert.equal(ids, [...new Set(ids)].sort((a, b) => a - b), "each event once, in order");
  } finally {
    await browser.close();
    await site.close();
    await d.close();
  }
});

test.run();
