// Arrangements for vault tests: each test builds its own parties and vault on a shared daemon, so a
// broken rule fails the one test that checks it instead of every test after it. Only the HTTP API,
// the sim's controls and the daemon's oracle trigger are used, so the daemon's internals may move.
import { readFileSync } from "node:fs";
import { Contract } from "ethers";
import * as assert from "uvu/assert";
import { createVault, fakeClock, party, startTestDaemon, type FakeClock, type Party, type TestDaemon } from "./daemon.js";
import type { ConfigInput } from "../../daemon/config.js";
import { BUSY_MACHINE } from "./busy-machine.js";

export interface VaultCase {
  d: TestDaemon;
  /** Investor: 10 000 sim USDC and an approved agent (the vault trades on her exchange account). */
  ivy: Party;
  /** Trader: signed in, nothing else. */
  tom: Party;
  vault: string;
}

/**
 * A daemon for vault tests: no oracle timer (tests run cycles), an exchange timeout for a busy machine,
 * and by default a clock that runs with the wall clock as the embedded chain's does (tests only move
 * it forward).
 */
export function startVaultDaemon(config: Partial<ConfigInput> = {}, clock: FakeClock = fakeClock(Date.now(), { realTime: true })) {
  return startTestDaemon({ startOracle: false, clock, config: { ...BUSY_MACHINE, ...config } });
}

/** Two signed-in parties, the investor's agent approved, and a vault deployed between them. */
export async function vaultCase(d: TestDaemon, terms: Record<string, unknown> = {}): Promise<VaultCase> {
  const [ivy, tom] = await Promise.all([party(d, { usdc: 10_000, agent: true }), party(d)]);
  const vault = await createVault(d, ivy, tom, terms);
  return { d, ivy, tom, vault };
}

/** Someone with an exchange account who is party to none of the test's vaults. */
export const stranger = (d: TestDaemon) => party(d, { usdc: 1000, agent: true });

export const setPrice = (d: TestDaemon, symbol: string, px: string) => d.daemon.sim!.setPrice(symbol, px);

/** POST /api/trade for the vault: 0.1 BTC market buy unless the body says otherwise. */
export const vaultTrade = (c: VaultCase, who: Party, body: Record<string, unknown> = {}) =>
  c.d.http.post("/api/trade", { symbol: "BTC", side: "buy", size: 0.1, vaultAddress: c.vault, ...body }, { token: who.token });

export const vaultPost = (c: VaultCase, action: string, who: Party, body?: unknown) =>
  c.d.http.post(`/api/vaults/${c.vault}/${action}`, body, { token: who.token });

export async function vaultDetail(c: VaultCase, who: Party = c.tom) {
  const r = await c.d.http.get(`/api/vaults/${c.vault}`, { token: who.token });
  assert.is(r.status, 200, JSON.stringify(r.body));
  return r.body.data.vault;
}

/** The vault's row in GET /api/vaults (served from a cache that must follow every change). */
export async function listedVault(c: VaultCase, who: Party) {
  const r = await c.d.http.get("/api/vaults", { token: who.token });
  assert.is(r.status, 200);
  assert.match(r.headers.get("content-type") ?? "", /^application\/json/);
  return r.body.data.vaults.find((x: { address: string }) => x.address === c.vault);
}

/** Types of the vault's stored events, oldest first. */
export async function vaultEventTypes(c: VaultCase, who: Party = c.ivy): Promise<string[]> {
  const r = await c.d.http.get(`/api/vaults/${c.vault}/events?limit=1000`, { token: who.token });
  assert.is(r.status, 200, JSON.stringify(r.body));
  return r.body.data.events.map((e: { type: string }) => e.type);
}

export async function assertEvents(c: VaultCase, types: string[]) {
  const seen = await vaultEventTypes(c);
  for (const type of types) assert.ok(seen.includes(type), `${type} in ${seen.join()}`);
}

/** The trader buys 0.1 BTC for the vault at 60 000 (a 10 000 vault: 1 000 per 10 000 of BTC move). */
export async function longBtc(c: VaultCase) {
  setPrice(c.d, "BTC", "60000");
  const r = await vaultTrade(c, c.tom);
  assert.is(r.status, 200, JSON.stringify(r.body));
  return r;
}

/**
 * Long 0.1 BTC plus a resting buy at 40 000, then BTC to 53 000 and one oracle cycle: about -700 on
 * 10 000, past the 5% daily limit and inside the 10% maximum, so the vault pauses for dailyDrawdown.
 */
export async function breach(c: VaultCase) {
  await longBtc(c);
  const resting = await vaultTrade(c, c.tom, { size: 0.01, price: 40000 });
  assert.is(resting.status, 200, JSON.stringify(resting.body));
  setPrice(c.d, "BTC", "53000");
  await c.d.daemon.oracle.cycle();
}

/** Long 0.1 BTC at 60 000, BTC to 66 000, and the investor closes: about +600 of profit. */
export async function closeWithProfit(c: VaultCase) {
  await longBtc(c);
  setPrice(c.d, "BTC", "66000");
  const r = await vaultPost(c, "close", c.ivy);
  assert.is(r.status, 200, JSON.stringify(r.body));
  return r.body.data.vault;
}

/**
 * The vault contract's own view of itself (`state()`), read with the built artifact's ABI rather than
 * through the daemon's chain modules: what the chain says, whatever the daemon's code looks like.
 */
export async function chainVaultState(c: VaultCase) {
  const artifact = new URL("../../artifacts/contracts/TradingVault.sol/TradingVault.json", import.meta.url);
  const abi = JSON.parse(readFileSync(artifact, "utf8")).abi;
  const st = await new Contract(c.vault, abi, c.d.daemon.chain.provider).getFunction("state")();
  return {
    paused: st.paused as boolean, closed: st.closed as boolean, finalBalance: st.finalBalance as bigint,
    profit: st.profit as bigint, traderShare: st.traderShare as bigint, investorShare: st.investorShare as bigint,
  };
}

/** The settlement token (test USDC, 6 decimals) held by `account`, in base units. */
export async function tokenBalance(c: VaultCase, account: string): Promise<bigint> {
  const token = new Contract(c.d.daemon.chain.addresses.token, ["function balanceOf(address) view returns (uint256)"], c.d.daemon.chain.provider);
  return token.getFunction("balanceOf")(account);
}
