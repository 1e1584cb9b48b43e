// A frontend on another site: its sign-in message names the page asking (EIP-4361's domain), login
// accepts only messages naming an allowed origin, and EventSource opens the stream with a single-use
// ticket instead of a cookie or a header.
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { Writable } from "node:stream";
import { Wallet } from "ethers";
import pino from "pino";
import { resolveConfig } from "../../daemon/config.js";
import { mintNonce } from "../../daemon/auth/sign-in-nonce.js";
import { challengeMessage } from "../../daemon/auth/sign-in-message.js";
import { sharedSecret } from "../../daemon/db/auth-repo.js";
import { startDaemonWithParts as startDaemon } from "../../daemon/main.js";
import { fakeClock, httpClient, signIn, type FakeClock, type HttpClient } from "../helpers/daemon.js";
import { tempDir } from "../helpers/util.js";

const APP = "http://localhost:5173";
type Ctx = { d: Awaited<ReturnType<typeof startDaemon>>; http: HttpClient; clock: FakeClock; logs: string[]; dir: ReturnType<typeof tempDir> };
const t = suite<Ctx>("cross-site");

t.before(async (ctx) => {
  ctx.dir = tempDir();
  ctx.clock = fakeClock();
  ctx.logs = [];
  const sink = new Writable({ write: (chunk, _e, done) => (ctx.logs.push(String(chunk)), done()) });
  const config = resolveConfig({ port: 0, dataDir: ctx.dir.path, simFeed: "static", corsOrigins: [APP], signInRateLimit: 10_000 });
  ctx.d = await startDaemon({ config, clock: ctx.clock, log: pino({ level: "info" }, sink), startOracle: false });
  ctx.http = httpClient(ctx.d.url);
});
t.after(async (ctx) => {
  await ctx.d.stop();
  ctx.dir.remove();
});

t("a challenge asked by an allowed page names that page; without Origin, the daemon's public URL", async ({ http, d }) => {
  const wallet = Wallet.createRandom();
  const fromApp = await http.post("/api/auth/challenge", { address: wallet.address }, { headers: { Origin: APP } });
  assert.is(fromApp.status, 200);
  assert.ok(fromApp.body.data.message.startsWith(`${APP} wants you to sign in`), fromApp.body.data.message);
  assert.match(fromApp.body.data.message, new RegExp(`\\nURI: ${APP}\\n`));
  const signature = await wallet.signMessage(fromApp.body.data.message);
  const login = await http.post("/api/auth/login", { address: wallet.address, signature, nonce: fromApp.body.data.nonce }, { headers: { Origin: APP } });
  assert.is(login.status, 200, JSON.stringify(login.body));

  const plain = await http.post("/api/auth/challenge", { address: wallet.address });
  assert.ok(plain.body.data.message.startsWith(`${d.publicUrl} wants you to sign in`));
  const evil = await http.post("/api/auth/challenge", { address: wallet.address }, { headers: { Origin: "https://evil.example" } });
  assert.is(evil.status, 403);
});

t("login refuses a message that names a site the daemon does not allow, though its nonce is the daemon's", async ({ http, d, clock }) => {
  const wallet = Wallet.createRandom();
  // What a challenge asked from https://evil.example would have been, had that origin been allowed:
  // minted under the daemon's own key (as after the origin is taken off --cors-origin).
  const key = Buffer.from(await sharedSecret(d.store.db, "sign-in", () => "unused", clock()), "hex");
  const origin = "https://evil.example";
  const times = { issuedAt: clock(), expiresAt: clock() + 60_000 };
  const nonce = mintNonce(key, { origin, chainId: 31337, address: wallet.address, ...times });
  const message = challengeMessage({ publicUrl: origin, chainId: 31337 }, { address: wallet.address, nonce, ...times });
  const r = await http.post("/api/auth/login", { address: wallet.address, signature: await wallet.signMessage(message), nonce });
  assert.is(r.status, 401);
  assert.is(r.body.error.code, "UNAUTHENTICATED");
  // The same, minted for the page the daemon allows, signs in: the origin is all that differed.
  const allowed = mintNonce(key, { origin: APP, chainId: 31337, address: wallet.address, ...times });
  const text = challengeMessage({ publicUrl: APP, chainId: 31337 }, { address: wallet.address, nonce: allowed, ...times });
  const ok = await http.post("/api/auth/login", { address: wallet.address, signature: await wallet.signMessage(text), nonce: allowed });
  assert.is(ok.status, 200, JSON.stringify(ok.body));
});

t("an event ticket opens the stream once, as its user, without cookie or header, and never reaches the log", async ({ http, d, logs, clock }) => {
  const wallet = Wallet.createRandom();
  const { token } = await signIn(http, wallet);
  assert.is((await http.post("/api/events/ticket")).status, 401, "a ticket needs a session");
  const issued = await http.post("/api/events/ticket", undefined, { token });
  assert.is(issued.status, 200);
  const { ticket, expiresAt } = issued.body.data;
  assert.is(expiresAt, Math.floor(clock() / 1000) + 60, "a minute, in Unix seconds");
  const open = (tk: string) => fetch(`${d.url}/api/events?ticket=${encodeURIComponent(tk)}&lastEventId=0`);
  const first = await open(ticket);
  assert.is(first.status, 200);
  assert.ok((first.headers.get("content-type") ?? "").startsWith("text/event-stream"));
  const reader = first.body!.getReader();
  const chunk = new TextDecoder().decode((await reader.read()).value);
  assert.match(chunk, /: connected/);
  await reader.cancel();
  const again = await open(ticket);
  assert.is(again.status, 401, "single use");
  assert.is(((await again.json()) as { error: { code: string } }).error.code, "UNAUTHENTICATED");
  assert.is((await open("not-a-ticket")).status, 401);
  assert.is((await fetch(`${d.url}/api/events`)).status, 401, "neither session nor ticket");
  assert.not.ok(logs.some((line) => line.includes(ticket)), "the ticket is never logged");
  assert.ok(logs.some((line) => line.includes("/api/events")), "the requests were logged");
});

t("a ticket expires after 60 s, and dies with its session at logout", async ({ http, d, clock }) => {
  const { token } = await signIn(http, Wallet.createRandom());
  const late = (await http.post("/api/events/ticket", undefined, { token })).body.data.ticket;
  clock.advance(60_001);
  assert.is((await fetch(`${d.url}/api/events?ticket=${late}`)).status, 401, "expired");
  const orphan = (await http.post("/api/events/ticket", undefined, { token })).body.data.ticket;
  await http.post("/api/auth/logout", undefined, { token });
  assert.is((await fetch(`${d.url}/api/events?ticket=${orphan}`)).status, 401, "the session that took it has ended");
});

t.run();
