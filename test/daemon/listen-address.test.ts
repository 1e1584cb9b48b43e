// The listening address as the daemon gives it on --port 0 with a --public-url: the port it was
// given, the public URL in sign-in messages and in /api/openapi.json, and both its own origins
// allowed (its dashboard on the address it listens on, and the site in front of it), no other. And a
// start that fails after the port opened closes it again, with everything started before it.
import { suite, test } from "uvu";
import * as assert from "uvu/assert";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Wallet } from "ethers";
import { startTestDaemon, type TestDaemon } from "../helpers/daemon.js";
import { freePort, tempDir } from "../helpers/util.js";

const PUBLIC = "https://vault.example.org";
const t = suite<{ d: TestDaemon }>("listening address");

t.before(async (ctx) => {
  ctx.d = await startTestDaemon({ config: { publicUrl: `${PUBLIC}/dashboard` } });
});
t.after(async (ctx) => {
  await ctx.d.close();
});

t("the address is the port the system gave, the public URL the configured origin", ({ d }) => {
  assert.match(d.url, /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.is.not(new URL(d.url).port, "0");
  assert.is(d.daemon.publicUrl, PUBLIC);
});

t("sign-in names the public URL, or the daemon's own address when a page there asks; another site is refused", async ({ d }) => {
  const address = Wallet.createRandom().address;
  const plain = await d.http.post("/api/auth/challenge", { address });
  assert.is(plain.status, 200);
  assert.ok(plain.body.data.message.startsWith(`${PUBLIC} wants you to sign in`), plain.body.data.message);
  const own = await d.http.post("/api/auth/challenge", { address }, { headers: { Origin: d.url } });
  assert.is(own.status, 200, JSON.stringify(own.body));
  assert.match(own.body.data.message, new RegExp(`\\nURI: ${d.url}\\n`));
  const front = await d.http.post("/api/auth/challenge", { address }, { headers: { Origin: PUBLIC } });
  assert.is(front.status, 200);
  const other = await d.http.post("/api/auth/challenge", { address }, { headers: { Origin: "https://evil.example" } });
  assert.is(other.status, 403);
});

t("/api/openapi.json gives the public URL as its server", async ({ d }) => {
  const r = await d.http.get("/api/openapi.json");
  assert.is(r.status, 200);
  assert.equal(r.body.servers, [{ url: PUBLIC }]);
});

t.run();

test("a start that fails after the port opened undoes every step: the same port and data directory start again", async () => {
  const taken = createServer();
  await new Promise<void>((r) => taken.listen(0, "127.0.0.1", () => r()));
  const metricsPort = (taken.address() as AddressInfo).port;
  const dir = tempDir();
  const port = await freePort();
  try {
    // The metrics endpoint starts after the API listens: its port being taken fails the start late.
    let failure = "";
    await startTestDaemon({ dataDir: dir.path, config: { port, metricsPort }, startOracle: false }).then(
      (d) => d.close(),
      (err: Error) => void (failure = err.message),
    );
    assert.match(failure, /EADDRINUSE|in use/);
    const again = await startTestDaemon({ dataDir: dir.path, config: { port }, startOracle: false });
    assert.is(new URL(again.url).port, String(port));
    assert.is((await again.http.get("/healthz")).status, 200);
    await again.close();
  } finally {
    taken.close();
    dir.remove();
  }
});

test.run();
