// One seeded vault life, played through the daemon as its users would: an investor and a trader, a
// vault between them, money moved in and out at random moments (the creation second among them),
// trades of random sizes that fill, rest and fill later, stops that fire (some into a gap the daemon
// closes itself), a leveraged position the exchange liquidates, price moves that breach and recover,
// unpauses, perhaps a SIGKILL and restart, and a close by either party or at the deadline. It ends with the
// vault's verification, which must hold; a failure names the seed and the first broken invariant.
import { approveAgent, randomWallet, signIn, signTyped, type Party } from "../../helpers/daemon.js";
import { mulberry32 } from "../../helpers/mulberry32.js";
import { waitUntil } from "../../helpers/util.js";
import { nextReading, simControl, vaultView, type World } from "./world.js";

/** The life's choices, from its seed (mulberry32). */
export function rng(seed: number) {
  const next = mulberry32(seed);
  return {
    next,
    int: (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1)),
    pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!,
    chance: (p: number) => next() < p,
  };
}

export interface LifeOptions {
  /** Let the sim take money out of the account (POST /sim/withdraw). */
  withdrawals: boolean;
  /** Allow a SIGKILL and restart in this life. */
  kills: boolean;
}

export interface LifeResult {
  seed: number;
  vault: string;
  steps: string[];
  verification: { outcome: string; invariants: Array<{ invariant: string; status: string; summary: string; break?: { what: string; expected: string; actual: string } }>; reason?: string };
}

const MARKETS = { BTC: { price: 60_000, sizes: [0.01, 0.02, 0.05, 0.1] }, ETH: { price: 3_000, sizes: [0.1, 0.5, 1, 2] } } as const;
type Symbol = keyof typeof MARKETS;

const traderShare = (trader: number) => ({ trader, investor: 100 - trader });

async function partyOn(w: World, usdc?: number): Promise<Party> {
  const wallet = randomWallet();
  const { token } = await signIn(w.http(), wallet);
  const p = { wallet, token, address: wallet.address };
  if (usdc) await simControl(w, "/sim/faucet", { user: p.address, amount: usdc });
  if (usdc) await approveAgent(w.http(), token, wallet);
  return p;
}

async function createVault(w: World, ivy: Party, tom: Party, terms: Record<string, unknown>): Promise<string> {
  const http = w.http();
  const created = await http.post("/api/proposals", { investor: ivy.address, trader: tom.address, ...terms }, { token: tom.token });
  if (created.status !== 200) throw new Error(`proposal: ${JSON.stringify(created.body)}`);
  const p = created.body.data.proposal;
  await http.post(`/api/proposals/${p.id}/accept`, { signature: await signTyped(tom.wallet, p.typedData) }, { token: tom.token });
  const done = await http.post(`/api/proposals/${p.id}/accept`, { signature: await signTyped(ivy.wallet, p.typedData) }, { token: ivy.token });
  const vault = done.body.data?.proposal?.vaultAddress as string | undefined;
  if (!vault) throw new Error(`vault not deployed: ${JSON.stringify(done.body)}`);
  return vault;
}

export async function playLife(w: World, seed: number, o: LifeOptions): Promise<LifeResult> {
  const r = rng(seed);
  const steps: string[] = [];
  const prices: Record<Symbol, number> = { BTC: MARKETS.BTC.price, ETH: MARKETS.ETH.price };
  for (const s of Object.keys(prices) as Symbol[]) await simControl(w, "/sim/price", { symbol: s, price: String(prices[s]) });

  const capital = r.pick([5_000, 10_000, 25_000]);
  const [ivy, tom] = await Promise.all([partyOn(w, capital), partyOn(w)]);
  const maxDrawdown = r.int(5, 30);
  const deadlineIn = r.chance(0.25) ? r.int(20, 40) : 30 * 86_400;
  const vault = await createVault(w, ivy, tom, {
    initialBalance: String(capital), maxDrawdown, dailyDrawdown: r.int(2, maxDrawdown),
    dealDeadline: Math.floor(Date.now() / 1000) + deadlineIn, profitShare: traderShare(r.int(0, 50)),
    breachPolicy: r.pick(["pause", "reduce-only", "flatten"]),
  });
  // LIVES_TRACE=1 prints each step as it happens (a life that hangs shows where).
  const say = (s: string) => {
    steps.push(s);
    if (process.env.LIVES_TRACE) console.error(`  [${seed}] ${s}`);
  };
  say(`vault ${vault}: capital ${capital}, max ${maxDrawdown}%`);

  const move = async (amount: number) => {
    if (amount > 0) return simControl(w, "/sim/faucet", { user: ivy.address, amount });
    if (o.withdrawals) await simControl(w, "/sim/withdraw", { user: ivy.address, amount: -amount }).catch((e) => say(`withdraw refused: ${(e as Error).message.slice(0, 80)}`));
  };
  // Right after the creation block: the creation second.
  if (r.chance(0.7)) {
    const amount = r.chance(0.5) || !o.withdrawals ? r.int(1, 5_000) : -r.int(1, Math.floor(capital / 4));
    await move(amount);
    say(`moved ${amount} in the creation second`);
  }

  let killed = false;
  const trade = (body: Record<string, unknown>) => w.http().post("/api/trade", { vaultAddress: vault, ...body }, { token: tom.token });
  for (let i = r.int(5, 12); i > 0; i--) {
    const what = r.pick(["deposit", "withdraw", "market", "market", "limit", "stop", "price", "price", "cycle", "unpause", "kill", "liquidation"] as const);
    const symbol = r.pick(Object.keys(MARKETS) as Symbol[]);
    if (process.env.LIVES_TRACE) console.error(`  [${seed}] next: ${what} ${symbol}`);
    if (what === "deposit") await move(r.int(1, 3_000));
    else if (what === "withdraw") await move(-r.int(1, 2_000));
    else if (what === "market") {
      const res = await trade({ symbol, side: r.pick(["buy", "sell"]), size: r.pick(MARKETS[symbol].sizes) });
      say(`market ${symbol}: ${res.status} ${res.body.ok ? "" : res.body.error?.code}`);
      continue;
    } else if (what === "limit") {
      // Off the mark by up to 3%: it rests, and a later move may fill it.
      const side = r.pick(["buy", "sell"] as const);
      const px = Math.round(prices[symbol] * (side === "buy" ? 1 - r.int(1, 3) / 100 : 1 + r.int(1, 3) / 100));
      const res = await trade({ symbol, side, size: r.pick(MARKETS[symbol].sizes), price: px });
      say(`limit ${side} ${symbol} at ${px}: ${res.status} ${res.body.ok ? "" : res.body.error?.code}`);
      continue;
    } else if (what === "stop") {
      say(await placeStop(w, r, tom.token, vault, symbol, prices[symbol]));
      continue;
    } else if (what === "liquidation") {
      if (r.chance(0.5)) continue; // rarer than the other steps: it takes most of the capital
      say(await liquidation(w, r, ivy, tom, vault, symbol, prices));
      continue;
    } else if (what === "price") {
      prices[symbol] = Math.round(prices[symbol] * (1 + r.int(-12, 10) / 100));
      await simControl(w, "/sim/price", { symbol, price: String(prices[symbol]) });
    } else if (what === "cycle") await nextReading(w, ivy, vault, (await vaultView(w, ivy, vault)).lastBalanceUpdate ?? 0);
    else if (what === "unpause") {
      const res = await w.http().post(`/api/vaults/${vault}/unpause`, undefined, { token: tom.token });
      say(`unpause: ${res.status} ${res.body.ok ? "" : res.body.error?.code}`);
      continue;
    } else if (what === "kill" && o.kills && !killed) {
      killed = true;
      await w.restart();
    } else continue;
    say(what === "price" ? `${symbol} to ${prices[symbol]}` : what);
  }

  if (deadlineIn < 3_600) {
    say("waits for the deadline: the oracle closes it");
  } else {
    const closer = r.pick([ivy, tom]);
    if (r.chance(0.5)) await move(r.chance(0.5) ? r.int(1, 1_000) : -r.int(1, 500)); // just before the close
    const res = await w.http().post(`/api/vaults/${vault}/close`, undefined, { token: closer.token });
    say(`close by the ${closer === ivy ? "investor" : "trader"}: ${res.status} ${res.body.ok ? res.body.data.vault.finalBalance : res.body.error?.code}`);
  }
  await waitForClosed(w, ivy, vault);
  if (r.chance(0.6)) await settle(w, r, ivy, tom, vault, say);
  const v = await w.http().get(`/api/vaults/${vault}/verify`, { token: ivy.token });
  if (v.status !== 200) throw new Error(`verify: ${v.status} ${JSON.stringify(v.body)}`);
  return { seed, vault, steps, verification: v.body.data.verification };
}

/**
 * A stop-loss on the vault's position in `symbol`, 2 to 8% from the mark on its losing side: a later
 * price step may cross it within its bound (the venue fills it) or gap past it (the daemon closes).
 */
async function placeStop(w: World, r: ReturnType<typeof rng>, token: string, vault: string, symbol: Symbol, mark: number): Promise<string> {
  const positions = (await w.http().get(`/api/positions?vaultAddress=${vault}`, { token })).body.data?.positions as Array<{ symbol: string; size: number }> | undefined;
  const held = positions?.find((p) => p.symbol === symbol);
  if (!held) return `stop ${symbol}: no position`;
  const long = held.size > 0;
  const px = Math.round(mark * (long ? 1 - r.int(2, 8) / 100 : 1 + r.int(2, 8) / 100));
  const res = await w.http().post("/api/trade", {
    vaultAddress: vault, symbol, side: long ? "sell" : "buy", size: Math.abs(held.size), trigger: { price: px, kind: "sl" },
  }, { token });
  return `stop ${long ? "sell" : "buy"} ${symbol} at ${px}: ${res.status} ${res.body.ok ? "" : res.body.error?.code}`;
}

/**
 * About 15 times the vault's balance in one position, then the price 6% against it: the exchange
 * liquidates it (its maintenance margin is a fortieth of the notional at most), leaving about a tenth.
 */
async function liquidation(w: World, r: ReturnType<typeof rng>, ivy: Party, tom: Party, vault: string, symbol: Symbol, prices: Record<Symbol, number>): Promise<string> {
  const v = await vaultView(w, ivy, vault);
  if (v.paused || v.closed) return "liquidation: the vault is paused";
  const decimals = symbol === "BTC" ? 3 : 2;
  const size = Math.floor((15 * Number(v.currentBalance) / prices[symbol]) * 10 ** decimals) / 10 ** decimals;
  const long = r.chance(0.5);
  const res = await w.http().post("/api/trade", { vaultAddress: vault, symbol, side: long ? "buy" : "sell", size }, { token: tom.token });
  if (!res.body.ok) return `liquidation: the ${size} ${symbol} entry was refused (${res.body.error?.code})`;
  prices[symbol] = Math.round(prices[symbol] * (long ? 0.94 : 1.06));
  await simControl(w, "/sim/price", { symbol, price: String(prices[symbol]) });
  return `liquidation: ${long ? "long" : "short"} ${size} ${symbol}, then ${symbol} to ${prices[symbol]}`;
}

/** The investor funds the escrow (short of, at or past what the trader is owed), and both withdraw what they may. */
async function settle(w: World, r: ReturnType<typeof rng>, ivy: Party, tom: Party, vault: string, say: (s: string) => void) {
  const http = w.http();
  const amount = String(r.pick([1, 10, 100, 500]));
  const prep = await http.post(`/api/vaults/${vault}/fund/prepare`, { amount }, { token: ivy.token });
  if (prep.status !== 200) throw new Error(`fund/prepare: ${JSON.stringify(prep.body)}`);
  const { typedData, deadline } = prep.body.data;
  const funded = await http.post(`/api/vaults/${vault}/fund`, { amount, deadline, signature: await signTyped(ivy.wallet, typedData) }, { token: ivy.token });
  if (funded.status !== 200) throw new Error(`the investor's funding of ${amount} was refused: ${JSON.stringify(funded.body)}`);
  say(`funded ${amount}`);
  for (const who of r.chance(0.5) ? [tom, ivy] : [ivy, tom]) {
    const res = await http.post(`/api/vaults/${vault}/withdraw`, undefined, { token: who.token });
    say(`${who === tom ? "trader" : "investor"} withdraws: ${res.status} ${res.body.ok ? res.body.data.amount : res.body.error?.code}`);
  }
}

async function waitForClosed(w: World, who: Party, vault: string) {
  await waitUntil(async () => (await vaultView(w, who, vault)).closed, { slowMs: 180_000, intervalMs: 250, what: `${vault} to close` });
}

/** The failure message of a life whose verification did not hold. */
export function lifeFailure(l: LifeResult): string {
  const broken = l.verification.invariants.find((i) => i.status === "broken");
  const first = broken ? `${broken.invariant}: ${broken.summary}; at ${broken.break?.what}: expected ${broken.break?.expected}, actual ${broken.break?.actual}` : l.verification.reason;
  return `seed ${l.seed} (${l.vault}): ${l.verification.outcome}: ${first}\n  life: ${l.steps.join("; ")}`;
}
