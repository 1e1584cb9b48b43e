// A vault between two browser users, made through the real path (proposal, both signatures, relay)
// over the API with the same keys their injected wallets hold: the tests that are about the vault
// page start on it rather than walking the proposal screens again (dashboard.test.ts walks them).
import { suite } from "uvu";
import type { Browser } from "playwright-core";
import { approveAgent, createVault, faucet, fakeClock, signIn as apiSignIn, startTestDaemon, type Party, type TestDaemon } from "../../helpers/daemon.js";
import { launchChromium } from "./chromium.js";
import { openUser, signIn, type User } from "./pages.js";
import { BUSY_MACHINE } from "../../helpers/busy-machine.js";

export interface VaultParties {
  vault: string;
  /** The investor: their sim account backs the vault; funded, agent approved. */
  ivy: User;
  tom: User;
  /** The same two as API parties (their own sessions), for reading what the page should show. */
  api: { ivy: Party; tom: Party };
}

export async function vaultParties(d: TestDaemon, browser: Browser, viewport?: { width: number; height: number }): Promise<VaultParties> {
  const [ivy, tom] = await Promise.all([openUser(browser, d.url, { viewport }), openUser(browser, d.url, { viewport })]);
  await Promise.all([signIn(ivy), signIn(tom)]);
  const asParty = async (u: User): Promise<Party> => ({ wallet: u.wallet.key, address: u.address, token: (await apiSignIn(d.http, u.wallet.key)).token });
  const api = { ivy: await asParty(ivy), tom: await asParty(tom) };
  await faucet(d, ivy.address, 10_000);
  await approveAgent(d.http, api.ivy.token, ivy.wallet.key);
  const vault = await createVault(d, api.ivy, api.tom);
  return { vault, ivy, tom, api };
}

export interface VaultPageCtx { d: TestDaemon; browser: Browser; p: VaultParties }

/** A suite on one daemon (no oracle timer, BTC at 60 000) and one browser, with a vault between two of its users. */
export function vaultPageSuite(name: string) {
  const t = suite<VaultPageCtx>(name);
  t.before(async (ctx) => {
    ctx.d = await startTestDaemon({ startOracle: false, clock: fakeClock(Date.now(), { realTime: true }), config: BUSY_MACHINE });
    ctx.browser = await launchChromium();
    ctx.d.daemon.sim!.setPrice("BTC", "60000");
    ctx.p = await vaultParties(ctx.d, ctx.browser);
  });
  t.after(async (ctx) => {
    await ctx.browser?.close();
    await ctx.d?.close();
  });
  return t;
}
