// A real daemon for a benchmark: embedded defaults (sim exchange, embedded Anvil chain), loopback,
// free ports, a temporary data directory removed on close, logging silenced. Plus the few client
// steps a benchmark needs to set itself up: sign-in, faucet (a remote sim's too), agent approval, vaults in bulk.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hexlify, randomBytes, Wallet, type HDNodeWallet } from "ethers";
import pino from "pino";
import { createVault } from "../../daemon/chain/contracts.js";
import { buildVaultTermsTypedData, ethersTypedDataArgs, randomSalt, type VaultTerms } from "../../daemon/chain/terms.js";
import { resolveConfig, type ConfigInput } from "../../daemon/config.js";
import { startDaemonWithParts, type DaemonWithParts } from "../../daemon/main.js";

export type AnyWallet = Wallet | HDNodeWallet;

export interface HostedDaemon {
  daemon: DaemonWithParts;
  dataDir: string;
  close(): Promise<void>;
}

export function tempDir(prefix = "tradevault-bench-"): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** What one daemon on a shared set-up (lib/shared-setup.ts) is given: an external chain and exchange. */
export interface SharedSetup {
  rpcUrl: string;
  exchangeUrl: string;
  operatorKeyFile: string;
  /** A PostgreSQL database; absent: the daemon's own SQLite file. */
  databaseUrl?: string;
}

/** hostDaemon's config on a shared set-up (Anvil's chain id is the embedded chain's, 31337). */
export const sharedConfig = (s: SharedSetup): Partial<ConfigInput> => ({
  rpcUrl: s.rpcUrl, chainId: 31337, exchangeUrl: s.exchangeUrl, operatorKeyFile: s.operatorKeyFile, databaseUrl: s.databaseUrl,
});

/** Rate limits are lifted (a benchmark is one client hammering); everything else is the default. */
export async function hostDaemon(opts: { startOracle?: boolean; config?: Partial<ConfigInput>; dataDir?: string } = {}): Promise<HostedDaemon> {
  const dir = opts.dataDir ? undefined : tempDir();
  const dataDir = opts.dataDir ?? dir!.path;
  const config = resolveConfig({
    port: 0, dataDir, logLevel: "silent", simFeed: "static", signInRateLimit: 1_000_000_000, orderRateLimit: 1_000_000_000,
    readWeightPerUser: 1_000_000_000, readWeightAllUsers: 1_000_000_000,
    ...opts.config,
  });
  try {
    const daemon = await startDaemonWithParts({ config, log: pino({ level: "silent" }), startOracle: opts.startOracle ?? false });
    return {
      daemon, dataDir,
      async close() {
        await daemon.stop();
        dir?.remove();
      },
    };
  } catch (err) {
    dir?.remove();
    throw err;
  }
}

async function post(url: string, body: unknown, token?: string): Promise<any> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as { ok: boolean; data?: any; error?: unknown };
  if (!res.ok || json.ok === false) throw new Error(`POST ${url}: ${res.status} ${JSON.stringify(json)}`);
  return json.data ?? json;
}

/** A read, tried again as a client should when the daemon says the exchange did not answer in time (502, 503, 429). */
async function get(url: string, token: string): Promise<any> {
  for (let attempt = 1; ; attempt++) {
    const res = await fetch(url, { headers: { Authorization: `Bearer ${token}` } });
    const json = (await res.json()) as { ok: boolean; data?: any };
    if (res.ok) return json.data;
    if (attempt >= 5 || ![429, 502, 503].includes(res.status)) throw new Error(`GET ${url}: ${res.status} ${JSON.stringify(json)}`);
    await new Promise((r) => setTimeout(r, 1_000 * attempt));
  }
}

/** Challenge, personal_sign, login: the session token. */
export async function signIn(url: string, wallet: AnyWallet): Promise<string> {
  const c = await post(`${url}/api/auth/challenge`, { address: wallet.address });
  const login = await post(`${url}/api/auth/login`, { address: wallet.address, signature: await wallet.signMessage(c.message), nonce: c.nonce });
  return login.user.sessionToken as string;
}

/** Credits `user` on a sim the daemon reaches over HTTP (POST /sim/faucet, loopback only). */
export async function simFaucet(simUrl: string, user: string, usdc: number): Promise<void> {
  const res = await fetch(`${simUrl}/sim/faucet`, {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ user, amount: String(usdc) }),
  });
  if (res.status !== 200) throw new Error(`sim faucet: ${res.status} ${await res.text()}`);
}

/** The wallet signs approveAgent for the daemon's agent key, which the daemon relays. */
export async function approveAgent(url: string, token: string, wallet: AnyWallet): Promise<void> {
  const status = await get(`${url}/api/agent`, token);
  if (status.approved) return;
  const { EIP712Domain: _d, ...types } = status.approval.typedData.types;
  const signature = await wallet.signTypedData(status.approval.typedData.domain, types, status.approval.typedData.message);
  await post(`${url}/api/agent/approve`, { nonce: status.approval.nonce, signature }, token);
}

export interface BulkVaults {
  addresses: string[];
  /** The investors, each its vault's own exchange account. */
  investors: AnyWallet[];
}

/**
 * `count` vaults traded by `trader`, created through the real path in bulk: each investor is a fresh
 * wallet and its own exchange account, funded with the sim faucet (which also mints the settlement
 * token) so its balance is the vault's initial balance; both parties sign the EIP-712 terms, and
 * createVault goes through the daemon's operator sender, and its receipt goes through the daemon's
 * indexer, as the daemon's own vault calls do, which puts the vault rows in the database. `parallel` at a time (the sender serializes, but receipts are awaited together).
 */
export async function createVaults(
  d: DaemonWithParts, trader: AnyWallet, count: number,
  opts: {
    usdc?: number; parallel?: number; maxDrawdownBps?: number; dailyDrawdownBps?: number; breachPolicy?: number;
    /** Credits sim USDC; the embedded sim's by default (an external one is reached over HTTP). */
    faucet?: (user: string, amount: number) => Promise<unknown>;
  } = {},
): Promise<BulkVaults> {
  const usdc = opts.usdc ?? 10_000;
  const parallel = opts.parallel ?? 25;
  const investors = Array.from({ length: count }, () => new Wallet(hexlify(randomBytes(32))));
  const faucet = opts.faucet ?? ((user: string, amount: number) => d.sim!.faucet(user, amount));
  for (let i = 0; i < count; i += parallel) {
    await Promise.all(investors.slice(i, i + parallel).map((w) => faucet(w.address, usdc)));
  }
  // A vault counts ledger updates from the second it was created (block time, whole seconds): the
  // faucet credit must fall in an earlier second, or the oracle would read it as an outside deposit.
  await new Promise((r) => setTimeout(r, 1_050 - (Date.now() % 1_000)));
  const nowS = Math.floor(Date.now() / 1000);
  const addresses: string[] = [];
  for (let i = 0; i < count; i += parallel) {
    addresses.push(...(await Promise.all(investors.slice(i, i + parallel).map(async (investor) => {
      const terms: VaultTerms = {
        investor: investor.address, trader: trader.address, exchangeAccount: investor.address,
        initialBalance: BigInt(usdc) * 1_000_000n, maxDrawdownBps: opts.maxDrawdownBps ?? 5_000, dailyDrawdownBps: opts.dailyDrawdownBps ?? 2_500,
        dealDeadline: nowS + 30 * 86_400, traderShareBps: 2_000, breachPolicy: opts.breachPolicy ?? 0, validUntil: nowS + 86_400, salt: randomSalt(),
      };
      const args = ethersTypedDataArgs(buildVaultTermsTypedData({ chainId: d.chain.chainId, factory: d.chain.addresses.factory, terms }));
      const [investorSignature, traderSignature] = await Promise.all([investor.signTypedData(...args), trader.signTypedData(...args)]);
      const r = await createVault(d.chain.signer, { factory: d.chain.addresses.factory, terms, investorSignature, traderSignature });
      await d.indexer.applyReceipt(r.receipt);
      return r.vault;
    }))));
  }
  return { addresses, investors };
}
