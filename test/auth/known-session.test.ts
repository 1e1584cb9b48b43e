// auth.known: what authenticate would answer, without a promise, for a session kept in memory under an
// unmoved change key. It must never answer for a session that a write, its expiry or a due refresh
// has changed. On PostgreSQL the change key is a query, so nothing is ever known without one.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { sql } from "kysely";
import { createAuthService, type AuthService, type AuthSettings } from "../../daemon/auth/auth-service.js";
import type { Store } from "../../daemon/db/store.js";
import { fakeClock, randomWallet, type FakeClock } from "../helpers/daemon.js";
import { openTestStore } from "../helpers/stores.js";

const ORIGIN = "http://127.0.0.1:8080";
const HOUR = 3600_000;

function authOn(store: Store, clock: FakeClock, settings?: Partial<AuthSettings>): AuthService {
  return createAuthService({
    db: store.db, work: store, changeKey: store.changeKey, changeKeyNow: store.changeKeyNow, clock, settings,
    origin: () => ({ publicUrl: ORIGIN, chainId: 31337 }),
    allowedOrigins: () => new Set([ORIGIN]),
  });
}

async function signedIn(auth: AuthService): Promise<string> {
  const wallet = randomWallet();
  const c = await auth.challenge(wallet.address);
  return (await auth.login({ address: wallet.address, signature: await wallet.signMessage(c.message), nonce: c.nonce })).sessionToken;
}

async function withAuth(settings: Partial<AuthSettings> | undefined, fn: (auth: AuthService, store: Store, clock: FakeClock) => Promise<void>) {
  const t = await openTestStore();
  try {
    const clock = fakeClock();
    await fn(authOn(t.store, clock, settings), t.store, clock);
  } finally {
    await t.close();
  }
}

const sqlite = (store: Store) => store.kind === "sqlite";

test("a session read once is known until anything is written; then it is read again", async () => {
  await withAuth(undefined, async (auth, store) => {
    const token = await signedIn(auth);
    assert.is(auth.known(token), undefined, "not read yet");
    const user = await auth.authenticate(token);
    if (!sqlite(store)) {
      assert.is(auth.known(token), undefined, "PostgreSQL: the change key is a query");
      return;
    }
    assert.equal(auth.known(token), user);
    await sql`delete from sessions`.execute(store.db); // another writer ends it
    assert.is(auth.known(token), undefined);
    await auth.authenticate(token).then(() => assert.unreachable("the session was deleted"), () => undefined);
  });
});

test("a kept session is not known once its refresh is due (authenticate writes it) or it has expired", async () => {
  await withAuth(undefined, async (auth, store, clock) => {
    if (!sqlite(store)) return;
    const token = await signedIn(auth);
    await auth.authenticate(token);
    clock.advance(59_000);
    assert.ok(auth.known(token), "within the minute");
    clock.advance(2_000);
    assert.is(auth.known(token), undefined, "the refresh is due");
  });
  // Refreshes written rarer than sessions last: only the expiry check stands between a kept row and
  // an expired session.
  await withAuth({ refreshEveryMs: 48 * HOUR }, async (auth, store, clock) => {
    if (!sqlite(store)) return;
    const token = await signedIn(auth);
    await auth.authenticate(token);
    clock.advance(24 * HOUR - 1000);
    assert.ok(auth.known(token));
    clock.advance(1000);
    assert.is(auth.known(token), undefined, "expired");
  });
});

test.run();
