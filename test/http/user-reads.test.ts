// Reads that cost exchange weight, through a real daemon on the sim: one party polls its vaults'
// performance, its account and orders as fast as it can, and still the weight the sim counted for
// its reads stays within its budget, every answer is 200 or 429 with Retry-After, and the oracle reads
// every vault every cycle meanwhile. Then, with a long window: a kept read (a verification too) costs
// the venue nothing, an order shows in the very next read, and a 429 is documented as the envelope says.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { readingsOf } from "../../daemon/db/vault-readings-repo.js";
import { createVault, fakeClock, party, startTestDaemon, type Party, type TestDaemon } from "../helpers/daemon.js";
import { waitUntil } from "../helpers/util.js";

const PER_USER = 120;

/** The sim's count of `type` weight for `account` (all types when none is named). */
const weightOf = (d: TestDaemon, account: string, ...types: string[]) => {
  const w = d.daemon.sim!.weight(account);
  return types.length === 0 ? w.weight : types.reduce((sum, t) => sum + (w.byType[t] ?? 0), 0);
};

test("one party polling as fast as it can: its reads stay within its budget, answers are 200 or 429, the oracle reads every vault every cycle", async () => {
  const d = await startTestDaemon({
    clock: fakeClock(Date.now(), { realTime: true }),
    // A short window, so the budget, not the window, decides how often the exchange is read.
    config: { oracleInterval: 1, staleAfter: 5, readCache: 0.5, readWeightPerUser: PER_USER, readWeightAllUsers: 300 },
  });
  try {
    const tom = await party(d);
    const ivys: Party[] = [await party(d, { usdc: 10_000, agent: true }), await party(d, { usdc: 10_000, agent: true })];
    const vaults = [await createVault(d, ivys[0]!, tom), await createVault(d, ivys[1]!, tom)];
    const paths = [
      ...vaults.map((v) => `/api/vaults/${v}/performance`), "/api/account", ...vaults.map((v) => `/api/orders?vaultAddress=${v}`), "/api/orders",
    ];
    // What only the party's requests read: its own account, and of the vaults' accounts their funding and orders.
    const causedByTom = () => weightOf(d, tom.address) + ivys.reduce((sum, i) => sum + weightOf(d, i.address, "userFunding", "frontendOpenOrders"), 0);
    const readings = async () => Promise.all(vaults.map(async (v) => (await readingsOf(d.daemon.store.db, v)).length));
    const before = { weight: causedByTom(), readings: await readings(), at: Date.now() };

    const statuses = new Map<number, number>();
    let sent = 0;
    let fresh = [0, 0];
    const worker = async () => {
      // At least 600 requests, and on until the oracle has had three cycles under the load.
      while (sent < 600 || Math.min(...fresh) < 3) {
        assert.ok(sent < 50_000, "the oracle made no progress under the load");
        const r = await d.http.get(paths[sent++ % paths.length]!, { token: tom.token });
        statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
        if (r.status === 429) {
          assert.is(r.body.error.code, "RATE_LIMITED");
          assert.ok(Number(r.headers.get("retry-after")) >= 1, `Retry-After ${r.headers.get("retry-after")}`);
        } else assert.is(r.status, 200, JSON.stringify(r.body));
        if (sent % 50 === 0) fresh = (await readings()).map((n, i) => n - before.readings[i]!);
      }
    };
    await Promise.all([worker(), worker(), worker(), worker()]);
    fresh = (await readings()).map((n, i) => n - before.readings[i]!);

    const spent = causedByTom() - before.weight;
    const windows = Math.ceil((Date.now() - before.at) / 60_000);
    assert.ok(spent <= PER_USER * (windows + 1), `the sim counted ${spent} for the party's reads over ${windows} minute(s)`);
    assert.ok((statuses.get(429) ?? 0) > 0, `some reads had no kept answer past the budget: ${JSON.stringify([...statuses])}`);
    assert.ok((statuses.get(200) ?? 0) > 0);
    // Every cycle read both vaults: their readings grew together, one apart at most (a cycle under way).
    assert.ok(Math.abs(fresh[0]! - fresh[1]!) <= 1, `new readings per vault: ${fresh}`);
    assert.is(d.daemon.oracle.status().lastResult, "ok");
  } finally {
    await d.close();
  }
});

test("with a long window: a kept read or verification costs the venue nothing, an order shows in the very next read, 429 is documented", async () => {
  const d = await startTestDaemon({ config: { readCache: 30, readWeightPerUser: PER_USER } });
  try {
    const ann = await party(d, { usdc: 10_000, agent: true });
    const account = () => weightOf(d, ann.address);
    const first = await d.http.get("/api/account", { token: ann.token });
    assert.is(first.status, 200, JSON.stringify(first.body));
    const spent = account();
    const again = await d.http.get("/api/account", { token: ann.token });
    assert.equal(again.body.data.exchange, first.body.data.exchange);
    assert.is(account(), spent, "the second read within the window reached nothing");

    assert.equal((await d.http.get("/api/orders", { token: ann.token })).body.data.orders, []);
    const placed = await d.http.post("/api/trade", { symbol: "BTC", side: "buy", size: 0.001, price: 50_000 }, { token: ann.token });
    assert.is(placed.status, 200, JSON.stringify(placed.body));
    const listed = await d.http.get("/api/orders", { token: ann.token });
    assert.equal(listed.body.data.orders.map((o: { orderId: number }) => o.orderId), [placed.body.data.orderId], "the order's account was read afresh");

    // A verification is kept for the vault too: the second within the window reads nothing.
    const bob = await party(d);
    const vault = await createVault(d, ann, bob);
    // A kept verification holds only until the vault records something new, and a new vault's first
    // readings land around its creation: the pair is asked again until no reading came between them.
    const readings = async () => (await readingsOf(d.daemon.store.db, vault)).length;
    let verified: Awaited<ReturnType<typeof d.http.get>> | undefined;
    let twice: Awaited<ReturnType<typeof d.http.get>> | undefined;
    let history = 0;
    await waitUntil(async () => {
      const before = await readings();
      verified = await d.http.get(`/api/vaults/${vault}/verify`, { token: bob.token });
      assert.is(verified.status, 200, JSON.stringify(verified.body));
      history = weightOf(d, ann.address, "historicalOrders"); // only a verification reads it
      twice = await d.http.get(`/api/vaults/${vault}/verify`, { token: ann.token });
      return (await readings()) === before;
    }, { what: "two verifications with no reading between them" });
    assert.ok(history >= 20);
    assert.equal(twice!.body.data.verification, verified!.body.data.verification);
    assert.is(weightOf(d, ann.address, "historicalOrders"), history);

    // Reads never asked before (each order id its own) until the minute's budget is spent: then 429.
    let refused: Awaited<ReturnType<typeof d.http.get>> | undefined;
    for (let id = 9_000_001; !refused && id < 9_000_000 + PER_USER; id++) {
      const r = await d.http.get(`/api/orders/${id}`, { token: ann.token });
      if (r.status === 429) refused = r;
      else assert.is(r.status, 404, JSON.stringify(r.body));
    }
    assert.ok(refused, "the budget ran out");
    assert.equal(Object.keys(refused.body), ["ok", "error"]);
    assert.equal([refused.body.ok, refused.body.error.code], [false, "RATE_LIMITED"]);
    assert.ok(Number(refused.headers.get("retry-after")) >= 1);
    const kept = await d.http.get("/api/orders", { token: ann.token });
    assert.is(kept.status, 200, "past the budget, a kept answer is still served");
    assert.equal(kept.body.data.orders, listed.body.data.orders);
    // A verification kept from before the vault's close never answers for after it: past the budget,
    // 429 rather than "the vault is not closed".
    assert.is((await d.http.post(`/api/vaults/${vault}/close`, {}, { token: bob.token })).status, 200);
    const after = await d.http.get(`/api/vaults/${vault}/verify`, { token: ann.token });
    assert.is(after.status, 429, JSON.stringify(after.body));
  } finally {
    await d.close();
  }
});

test.run();
