// The daemon's faucet (POST /api/sim/faucet) gives each account at most 100 000 USDC per UTC day:
// beyond it a 400 says the cap and what is left, nothing is credited, and the count survives a
// restart. Other accounts have their own allowance, and a new UTC day brings a new one.
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { ExchangeClient, HttpTransport } from "@nktkas/hyperliquid";
import { faucet as faucetOnLoopback, fakeClock, randomWallet, signIn, startTestDaemon, type FakeClock, type TestDaemon } from "../helpers/daemon.js";
import { tempDir } from "../helpers/util.js";

interface Ctx { d: TestDaemon; dir: ReturnType<typeof tempDir>; clock: FakeClock; alice: ReturnType<typeof randomWallet> }
const t = suite<Ctx>("sim faucet daily cap");
const daemon = (ctx: Ctx) => startTestDaemon({ dataDir: ctx.dir.path, clock: ctx.clock, startOracle: false });

t.before(async (ctx) => {
  ctx.dir = tempDir();
  // Noon UTC today: the day ends 12 h from here, well inside a session's lifetime.
  ctx.clock = fakeClock(Math.floor(Date.now() / 86_400_000) * 86_400_000 + 43_200_000);
  ctx.d = await daemon(ctx);
  ctx.alice = randomWallet();
});
t.after(async (ctx) => {
  await ctx.d?.close();
  ctx.dir.remove();
});

const faucet = async (d: TestDaemon, wallet: ReturnType<typeof randomWallet>, amount: string | number) =>
  d.http.post("/api/sim/faucet", { amount }, { token: (await signIn(d.http, wallet)).token });

/** The account's USDC on the sim, read from the exchange (what was really credited). */
async function simUsdc(d: TestDaemon, address: string): Promise<string> {
  const res = await fetch(`${d.daemon.sim!.url}/info`, {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ type: "clearinghouseState", user: address }),
  });
  return ((await res.json()) as { marginSummary: { accountValue: string } }).marginSummary.accountValue;
}

t("two calls: 60 000 then 50 000 is refused with the cap and the 40 000 left; nothing is credited", async (ctx) => {
  const first = await faucet(ctx.d, ctx.alice, "60000");
  assert.is(first.status, 200, JSON.stringify(first.body));
  assert.is(first.body.data.leftToday, "40000");
  assert.is(first.body.data.user, ctx.alice.address, "EIP-55, as every address the API answers (the sim says lower case)");
  const second = await faucet(ctx.d, ctx.alice, 50000);
  assert.is(second.status, 400);
  assert.is(second.body.error.code, "INVALID_INPUT");
  assert.match(second.body.error.message, "at most 100000 USDC per account per UTC day; 40000 USDC left today");
  assert.is(second.body.error.details[0].field, "body.amount");
  assert.is(await simUsdc(ctx.d, ctx.alice.address), "60000.0");
});

t("the count survives a restart", async (ctx) => {
  await ctx.d.close();
  ctx.d = await daemon(ctx);
  const over = await faucet(ctx.d, ctx.alice, "40000.000001");
  assert.is(over.status, 400);
  assert.match(over.body.error.message, "40000 USDC left today");
  const rest = await faucet(ctx.d, ctx.alice, "40000");
  assert.is(rest.status, 200, JSON.stringify(rest.body));
  assert.is(rest.body.data.leftToday, "0");
  const none = await faucet(ctx.d, ctx.alice, "0.000001");
  assert.is(none.status, 400);
  assert.match(none.body.error.message, "0 USDC left today");
  assert.is(await simUsdc(ctx.d, ctx.alice.address), "100000.0");
});

t("each account has its own allowance; a new UTC day brings a new one", async (ctx) => {
  const bob = randomWallet();
  assert.is((await faucet(ctx.d, bob, "100000")).status, 200);
  assert.is((await faucet(ctx.d, bob, "100000.000001")).status, 400, "one call beyond the cap is refused too");
  ctx.clock.advance(12 * 3_600_000); // midnight UTC
  const tomorrow = await faucet(ctx.d, ctx.alice, "100000");
  assert.is(tomorrow.status, 200, JSON.stringify(tomorrow.body));
  assert.is(tomorrow.body.data.leftToday, "0");
});

t("a credit the sim refuses hands its reservation back", async (ctx) => {
  // The sim refuses to fund an address that is another account's live agent.
  const master = randomWallet();
  const carol = randomWallet();
  await faucetOnLoopback(ctx.d, master.address, 100);
  const transport = new HttpTransport({ apiUrl: ctx.d.daemon.sim!.url, isTestnet: true });
  await new ExchangeClient({ transport, wallet: master }).approveAgent({ agentAddress: carol.address as `0x${string}`, agentName: "bot" });
  const refused = await faucet(ctx.d, carol, "30000");
  assert.is(refused.status, 400);
  assert.match(refused.body.error.message, /the sim refused: .* is an agent of/);
  const rows = await ctx.d.daemon.store.db.selectFrom("sim_faucet_days").select("granted").where("account", "=", carol.address).execute();
  assert.equal(rows.map((r) => r.granted), ["0"], "nothing counted against carol's day");
});

t.run();
