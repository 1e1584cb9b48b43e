// Stateless challenges (auth/sign-in-nonce.ts): a challenge writes nothing, its nonce's HMAC guards
// the times and the address it names, a login spends the nonce once (also after the sweep, and on a
// daemon whose clock runs behind), and on PostgreSQL a challenge one daemon issued signs in on another.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { sql } from "kysely";
import { challengeMessage } from "../../daemon/auth/sign-in-message.js";
import { mintNonce } from "../../daemon/auth/sign-in-nonce.js";
import { sharedSecret } from "../../daemon/db/auth-repo.js";
import { createAuthService, type AuthService } from "../../daemon/auth/auth-service.js";
import { openStore } from "../../daemon/db/database.js";
import type { Store } from "../../daemon/db/store.js";
import { fakeClock, randomWallet, type FakeClock } from "../helpers/daemon.js";
import { only, openTestStore, rows } from "../helpers/stores.js";

const ORIGIN = "http://127.0.0.1:8080";
const TTL = 5 * 60_000;

/** An auth service as a daemon builds it, on `store`, with its own clock. */
function authOn(store: Store, clock: FakeClock): AuthService {
  return createAuthService({
    db: store.db, work: store, changeKey: store.changeKey, clock,
    origin: () => ({ publicUrl: ORIGIN, chainId: 31337 }),
    allowedOrigins: () => new Set([ORIGIN]),
  });
}

type Wallet = ReturnType<typeof randomWallet>;

async function signed(auth: AuthService, wallet: Wallet) {
  const c = await auth.challenge(wallet.address);
  return { address: wallet.address, signature: await wallet.signMessage(c.message), nonce: c.nonce };
}

async function refused(attempt: Promise<unknown>, why: string): Promise<void> {
  try {
    await attempt;
  } catch (err) {
    assert.is((err as { code?: string }).code, "UNAUTHENTICATED", why);
    return;
  }
  assert.unreachable(why);
}

const count = async (store: Store, table: string) =>
  Number((await rows(store, sql<{ n: number }>`select count(*) as n from ${sql.table(table)}`))[0]!.n);

test("a challenge writes nothing: no row in any table, the store's change key unmoved", async () => {
  const t = await openTestStore();
  try {
    const auth = authOn(t.store, fakeClock());
    await auth.challenge(randomWallet().address); // the first one creates the shared key
    const tables = ["auth_keys", "auth_nonces", "auth_used_nonces", "users", "sessions"];
    const before = await Promise.all(tables.map((n) => count(t.store, n)));
    const key = await t.store.changeKey();
    for (let i = 0; i < 3; i++) await auth.challenge(randomWallet().address);
    assert.equal(await Promise.all(tables.map((n) => count(t.store, n))), before);
    assert.is(await t.store.changeKey(), key);
  } finally {
    await t.close();
  }
});

test("a nonce whose expiry was moved later, and the message rebuilt and signed with it, signs nobody in", async () => {
  const t = await openTestStore();
  try {
    const clock = fakeClock();
    const auth = authOn(t.store, clock);
    const wallet = randomWallet();
    const c = await auth.challenge(wallet.address);
    const issuedAt = clock();
    const expiresAt = issuedAt + 24 * 3600_000;
    const nonce = c.nonce.slice(0, 12) + expiresAt.toString(16).padStart(12, "0") + c.nonce.slice(24);
    const message = challengeMessage({ publicUrl: ORIGIN, chainId: 31337 }, { address: wallet.address, nonce, issuedAt, expiresAt });
    assert.match(message, `Expiration Time: ${new Date(expiresAt).toISOString()}`);
    await refused(auth.login({ address: wallet.address, signature: await wallet.signMessage(message), nonce }), "a forged expiry");
    assert.is(await count(t.store, "sessions"), 0);
    // The genuine one still works: the refusal spent nothing.
    assert.ok((await auth.login({ address: wallet.address, signature: await wallet.signMessage(c.message), nonce: c.nonce })).sessionToken);
  } finally {
    await t.close();
  }
});

test("a nonce minted with the key (read from the database) for a longer life, or issued in the future, signs nobody in", async () => {
  const t = await openTestStore();
  try {
    const clock = fakeClock();
    const auth = authOn(t.store, clock);
    await auth.challenge(randomWallet().address); // creates the key
    const key = Buffer.from(await sharedSecret(t.store.db, "sign-in", () => "unused", clock()), "hex");
    const wallet = randomWallet();
    const attempt = async (issuedAt: number, expiresAt: number) => {
      const nonce = mintNonce(key, { origin: ORIGIN, chainId: 31337, address: wallet.address, issuedAt, expiresAt });
      const message = challengeMessage({ publicUrl: ORIGIN, chainId: 31337 }, { address: wallet.address, nonce, issuedAt, expiresAt });
      return auth.login({ address: wallet.address, signature: await wallet.signMessage(message), nonce });
    };
    await refused(attempt(clock(), clock() + 30 * 86_400_000), "a month-long challenge");
    await refused(attempt(clock() + 3600_000, clock() + 3600_000 + TTL), "issued an hour from now");
    assert.ok((await attempt(clock() - 1000, clock() - 1000 + TTL)).sessionToken, "as the daemon mints: accepted");
  } finally {
    await t.close();
  }
});

test("a nonce of another shape the API takes (an earlier version's, a truncated one) is a failed sign-in, not an error", async () => {
  const t = await openTestStore();
  try {
    const auth = authOn(t.store, fakeClock());
    const wallet = randomWallet();
    const c = await auth.challenge(wallet.address);
    const signature = await wallet.signMessage(c.message);
    for (const nonce of ["abcdef1234567890", c.nonce.slice(0, 63), c.nonce.slice(0, 62), c.nonce.toUpperCase()]) {
      await refused(auth.login({ address: wallet.address, signature, nonce }), `nonce ${nonce}`);
    }
    assert.is(await count(t.store, "auth_used_nonces"), 0);
  } finally {
    await t.close();
  }
});

test("a spent nonce is refused after the sweep ran, and its row goes only once it expired (and a margin)", async () => {
  const t = await openTestStore();
  try {
    const clock = fakeClock();
    const auth = authOn(t.store, clock);
    const first = await signed(auth, randomWallet());
    await auth.login(first);
    clock.advance(61_000); // a sweep is due at the next login
    await auth.login(await signed(auth, randomWallet()));
    await refused(auth.login(first), "replayed after a sweep");
    assert.is(await count(t.store, "auth_used_nonces"), 2);
    clock.advance(TTL + 10 * 60_000);
    await auth.login(await signed(auth, randomWallet()));
    assert.is(await count(t.store, "auth_used_nonces"), 1, "the two expired ones swept, the new one kept");
    await refused(auth.login(first), "expired");
  } finally {
    await t.close();
  }
});

test("a daemon whose clock runs behind still finds a nonce spent that another daemon's sweep saw expire", async () => {
  const t = await openTestStore();
  try {
    const behind = fakeClock();
    const ahead = fakeClock(behind() + 4 * 60_000);
    const [slow, fast] = [authOn(t.store, behind), authOn(t.store, ahead)];
    const spent = await signed(slow, randomWallet());
    await slow.login(spent);
    ahead.advance(2 * 60_000); // past the nonce's expiry by the fast clock, a sweep due
    await fast.login(await signed(fast, randomWallet()));
    await refused(slow.login(spent), "replayed on the daemon whose clock says the nonce is still live");
  } finally {
    await t.close();
  }
});

only("postgres", test)("two daemons on one database: a challenge from A signs in on B, once; the first challenges race for one key", async () => {
  const base = await openTestStore();
  const second = await openStore(base.target);
  try {
    const clock = fakeClock();
    const [a, b] = [authOn(base.store, clock), authOn(second, clock)];
    const [wa, wb] = [randomWallet(), randomWallet()];
    // Neither has read the key yet: both create it at once, one row wins, both use it.
    const [fromA, fromB] = await Promise.all([signed(a, wa), signed(b, wb)]);
    assert.is((await b.login(fromA)).address, wa.address);
    assert.is((await a.login(fromB)).address, wb.address);
    await refused(a.login(fromA), "spent on B, replayed on A");
    await refused(b.login(fromB), "spent on A, replayed on B");
    assert.is(await count(base.store, "auth_keys"), 1);
  } finally {
    await second.close();
    await base.close();
  }
});

test.run();
