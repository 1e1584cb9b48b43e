// What the crash test does to a daemon, over its HTTP API as a user would (parties signed in with
// real wallets, the sim's faucet and price through /api/sim/*, proposals signed by both), and the
// contract state read straight from the chain the daemon names in /healthz.
import { JsonRpcProvider } from "ethers";
import { readTokenBalance, readVaultState } from "../../daemon/chain/contracts.js";
import type { VaultState } from "../../daemon/chain/contracts.js";
import { approveAgent, httpClient, randomWallet, signIn, signTyped } from "../helpers/daemon.js";
import type { HttpClient, Party } from "../helpers/daemon.js";

export type { Party };

export async function partyOver(http: HttpClient, opts: { usdc?: string; agent?: boolean } = {}): Promise<Party> {
  const wallet = randomWallet();
  const { token } = await signIn(http, wallet);
  const p = { wallet, token, address: wallet.address };
  if (opts.usdc) await faucetOver(http, p, opts.usdc);
  if (opts.agent) await approveAgent(http, token, wallet);
  return p;
}

/** Sim USDC on the caller's sim account, and as much of the chain's test token (a mint: one block). */
export async function faucetOver(http: HttpClient, who: Party, usdc: string): Promise<void> {
  const r = await http.post("/api/sim/faucet", { amount: usdc }, { token: who.token });
  if (r.status !== 200) throw new Error(`faucet failed: ${r.status} ${JSON.stringify(r.body)}`);
}

/** Proposal by the trader, both EIP-712 signatures, the second one deploys: the vault's address. */
export async function vaultOver(http: HttpClient, investor: Party, trader: Party, terms: Record<string, unknown> = {}): Promise<string> {
  const body = {
    investor: investor.address, trader: trader.address, initialBalance: "10000", maxDrawdown: 50, dailyDrawdown: 40,
    dealDeadline: Math.floor(Date.now() / 1000) + 30 * 86_400, profitShare: { trader: 20, investor: 80 }, ...terms,
  };
  const created = await http.post("/api/proposals", body, { token: trader.token });
  if (created.status !== 200) throw new Error(`proposal failed: ${JSON.stringify(created.body)}`);
  const p = created.body.data.proposal;
  const first = await http.post(`/api/proposals/${p.id}/accept`, { signature: await signTyped(trader.wallet, p.typedData) }, { token: trader.token });
  if (first.status !== 200) throw new Error(`trader's accept failed: ${JSON.stringify(first.body)}`);
  const done = await http.post(`/api/proposals/${p.id}/accept`, { signature: await signTyped(investor.wallet, p.typedData) }, { token: investor.token });
  const vault = done.body.data?.proposal?.vaultAddress as string | undefined;
  if (done.status !== 200 || !vault) throw new Error(`vault not deployed: ${JSON.stringify(done.body)}`);
  return vault;
}

/** A VaultEvent as the API lists it, with its place in the vault's dense sequence (1, 2, 3...). */
export interface ListedEvent {
  id: number;
  seq: number;
  type: string;
  txHash: string | null;
  data: unknown;
}

/**
 * Every event of the vault, oldest first. The API lists newest first as a range of the dense
 * sequence, so the n-th row of a full page is event number total - n.
 */
export async function listEvents(http: HttpClient, who: Party, vault: string): Promise<{ events: ListedEvent[]; total: number }> {
  const r = await http.get(`/api/vaults/${vault}/events?limit=1000`, { token: who.token });
  if (r.status !== 200) throw new Error(`events of ${vault}: ${r.status} ${JSON.stringify(r.body)}`);
  const { events, total } = r.body.data as { events: Array<Omit<ListedEvent, "seq">>; total: number };
  if (total > 1000) throw new Error(`${vault} has ${total} events: more than one page`);
  const listed = events.map((e, i) => ({ id: e.id, seq: total - i, type: e.type, txHash: e.txHash, data: e.data }));
  return { events: listed.reverse(), total };
}

export interface ApiVault {
  currentBalance: string;
  lastBalanceUpdate: number | null;
  paused: boolean;
  closed: boolean;
}

export async function vaultDetailOver(http: HttpClient, who: Party, vault: string): Promise<ApiVault> {
  const r = await http.get(`/api/vaults/${vault}`, { token: who.token });
  if (r.status !== 200) throw new Error(`detail of ${vault}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.data.vault;
}

/** The chain as /healthz names it: its JSON-RPC (it moves with every daemon start), token and height. */
export async function chainInfo(base: string): Promise<{ rpcUrl: string; token: string; height: number | null }> {
  const r = await httpClient(base).get("/healthz");
  const c = r.body.data.chain;
  return { rpcUrl: c.rpcUrl, token: c.settlementToken, height: c.height };
}

async function withProvider<T>(rpcUrl: string, fn: (p: JsonRpcProvider) => Promise<T>): Promise<T> {
  const provider = new JsonRpcProvider(rpcUrl, 31337, { staticNetwork: true });
  try {
    return await fn(provider);
  } finally {
    provider.destroy();
  }
}

/** The contract's own state of a vault, read from the node with a fresh provider. */
export const chainState = (rpcUrl: string, vault: string): Promise<VaultState> =>
  withProvider(rpcUrl, (p) => readVaultState(p, { vault }));

/** The chain's test token held by `account`, in base units. */
export const chainTokens = (rpcUrl: string, token: string, account: string): Promise<bigint> =>
  withProvider(rpcUrl, (p) => readTokenBalance(p, { token, account }));
