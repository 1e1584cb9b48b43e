// A daemon keeps the session rows it reads while the store's change key stands still
// (auth/session-reader.ts), and each party's vault list likewise: whatever writes the database next
// shows on the next request. On PostgreSQL, two daemons on one database: a logout on one ends the
// session on the other at its next request (the issue allows a second; the change key gives none).
import { test } from "uvu";
import * as assert from "uvu/assert";
import { sql } from "kysely";
import { Wallet, type HDNodeWallet } from "ethers";
import { createAuthService, type AuthService } from "../../daemon/auth/auth-service.js";
import { openStore } from "../../daemon/db/database.js";
import type { Store } from "../../daemon/db/store.js";
import { createVault, party, randomWallet, signIn, startTestDaemon, type TestDaemon } from "../helpers/daemon.js";
import { only, openTestStore } from "../helpers/stores.js";
import { openSse } from "../helpers/sse.js";
import { hashToken } from "../../daemon/auth/session-reader.js";
import { startVaultDaemon } from "../helpers/vaults.js";


const account = (d: TestDaemon, token: string) => d.http.get("/api/account", { token });

test("a logout shows on the next request, after the session was read and kept", async () => {
  const d = await startTestDaemon();
  try {
    const { token } = await signIn(d.http, randomWallet());
    assert.is((await account(d, token)).status, 200);
    assert.is((await account(d, token)).status, 200, "a second read, from what was kept");
    assert.is((await d.http.post("/api/auth/logout", undefined, { token })).status, 200);
    const after = await account(d, token);
    assert.is(after.status, 401);
    assert.is(after.body.error.code, "UNAUTHENTICATED");
  } finally {
    await d.close();
  }
});

test("a session row deleted by another writer ends the session on the next request", async () => {
  const d = await startTestDaemon();
  try {
    const { token } = await signIn(d.http, randomWallet());
    assert.is((await account(d, token)).status, 200);
    assert.is((await account(d, token)).status, 200);
    await sql`delete from sessions`.execute(d.daemon.store.db);
    assert.is((await account(d, token)).status, 401);
  } finally {
    await d.close();
  }
});

test("a vault created shows in the next list of both parties, after each read the list before", async () => {
  const d = await startVaultDaemon();
  try {
    const [ivy, tom] = await Promise.all([party(d, { usdc: 10_000, agent: true }), party(d)]);
    for (const p of [ivy, tom]) assert.equal((await d.http.get("/api/vaults", { token: p.token })).body.data.vaults, []);
    const vault = await createVault(d, ivy, tom);
    for (const p of [ivy, tom]) {
      const listed = (await d.http.get("/api/vaults", { token: p.token })).body.data.vaults;
      assert.equal(listed.map((v: { address: string }) => v.address), [vault]);
    }
  } finally {
    await d.close();
  }
});

test("an event stream ends within seconds of its session ending elsewhere: a logout by another writer, or an expiry", async () => {
  const d = await startTestDaemon();
  try {
    // Deleted as another daemon's logout does: the row only, with no word to this daemon's streams.
    const gone = await signIn(d.http, randomWallet());
    const kept = await signIn(d.http, randomWallet());
    const [s1, s2] = [await openSse(`${d.url}/api/events`, gone.token), await openSse(`${d.url}/api/events`, kept.token)];
    await sql`delete from sessions where token_hash = ${hashToken(gone.token)}`.execute(d.daemon.store.db);
    // The end is waited on, not timed: the watch (every second) ends it; a stream left open hangs the test.
    await s1.ended;
    // Expired in the store (its last request was long ago): the stream ends too; the other stays.
    await sql`update sessions set expires_at = 1 where token_hash = ${hashToken(kept.token)}`.execute(d.daemon.store.db);
    await s2.ended;
    const third = await signIn(d.http, randomWallet());
    const s3 = await openSse(`${d.url}/api/events`, third.token);
    let ended = false;
    void s3.ended.then(() => (ended = true));
    for (let i = 0; i < 2; i++) await d.daemon.services.streamSessions.check();
    // The stream's end is read from the socket: let a few turns of the event loop pass before looking.
    await new Promise((r) => setTimeout(r, 100));
    assert.not.ok(ended, "a live session's stream stays open through the watch's rounds");
    s3.close();
  } finally {
    await d.close();
  }
});

/** An auth service as a daemon builds it, on a store of its own (its own connection pool). */
function authOn(store: Store): AuthService {
  const origin = "http://127.0.0.1:8080";
  return createAuthService({
    db: store.db, work: store, changeKey: store.changeKey, clock: Date.now,
    origin: () => ({ publicUrl: origin, chainId: 31337 }),
    allowedOrigins: () => new Set([origin]),
  });
}

async function login(auth: AuthService, wallet: HDNodeWallet): Promise<string> {
  const c = await auth.challenge(wallet.address);
  return (await auth.login({ address: wallet.address, signature: await wallet.signMessage(c.message), nonce: c.nonce })).sessionToken;
}

only("postgres", test)("two daemons on one database: a logout on A ends the session on B at B's next request", async () => {
  const base = await openTestStore();
  const second = await openStore(base.target);
  try {
    const [a, b] = [authOn(base.store), authOn(second)];
    const wallet = Wallet.createRandom();
    const token = await login(a, wallet);
    // B reads the session twice: the second answer comes from what B kept.
    for (let i = 0; i < 2; i++) assert.is((await b.authenticate(token)).address, wallet.address);
    await a.logout(token);
    try {
      await b.authenticate(token);
      assert.unreachable("B still took the session A ended");
    } catch (err) {
      assert.is((err as { code?: string }).code, "UNAUTHENTICATED");
    }
    // And a session A creates afterwards is known to B at once.
    const next = await login(a, wallet);
    assert.is((await b.authenticate(next)).address, wallet.address);
  } finally {
    await second.close();
    await base.close();
  }
});

test.run();
