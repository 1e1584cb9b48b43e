// Starts a real daemon in-process on a free loopback port with its own data directory, and gives
// tests a small HTTP client and a controllable clock. Every answer a test receives from it is checked
// against the API contract (contract.ts). In a PostgreSQL run (stores.ts) its records go to a fresh
// database instead of the data directory's SQLite file.
import { Wallet, hexlify, randomBytes, type HDNodeWallet } from "ethers";
import pino, { type Logger } from "pino";
import { resolveConfig, type ConfigInput } from "../../daemon/config.js";
import { startDaemonWithParts, type DaemonWithParts } from "../../daemon/main.js";
import type { AuthSettings } from "../../daemon/auth/auth-service.js";
import { watchDaemon } from "./contract.js";
import { fromTemplate, templateKey } from "./data-template.js";
import { freshDatabase } from "./postgres.js";
import { storeKind } from "./stores.js";
import { tempDir } from "./util.js";

export interface FakeClock {
  (): number;
  advance(ms: number): void;
}

/**
 * A clock tests can move forward. Frozen by default; `realTime` keeps it running with the wall clock
 * (plus whatever was advanced), as the embedded chain's own clock does.
 */
export function fakeClock(start = Date.now(), opts: { realTime?: boolean } = {}): FakeClock {
  let offset = start - Date.now();
  let frozen = start;
  const clock = (() => (opts.realTime ? Date.now() + offset : frozen)) as FakeClock;
  clock.advance = (ms) => {
    offset += ms;
    frozen += ms;
  };
  return clock;
}

export interface TestDaemon {
  daemon: DaemonWithParts;
  url: string;
  dataDir: string;
  clock: FakeClock;
  http: HttpClient;
  close(): Promise<void>;
}

/** Each data directory's database in a PostgreSQL run: a daemon restarted on it finds its records again. */
const databases = new Map<string, Promise<string>>();
function databaseOf(dataDir: string): Promise<string> {
  let url = databases.get(dataDir);
  if (!url) databases.set(dataDir, (url = freshDatabase()));
  return url;
}

export async function startTestDaemon(
  opts: { config?: Partial<ConfigInput>; clock?: FakeClock; authSettings?: Partial<AuthSettings>; dataDir?: string; startOracle?: boolean; log?: Logger } = {},
): Promise<TestDaemon> {
  const dir = opts.dataDir ? undefined : tempDir();
  const dataDir = opts.dataDir ?? dir!.path;
  const clock = opts.clock ?? fakeClock();
  const databaseUrl = storeKind === "postgres" ? await databaseOf(dataDir) : undefined;
  // Limits off unless a test sets them: most tests move the sim and read right after, as one client
  // (test/http/user-reads.test.ts and its neighbours set the read cache and budgets they check).
  const input: ConfigInput = {
    port: 0, dataDir, databaseUrl, logLevel: "silent", signInRateLimit: 10_000, orderRateLimit: 10_000, simFeed: "static",
    readCache: 0, readWeightPerUser: 1_000_000, readWeightAllUsers: 1_000_000, ...opts.config,
  };
  // A new folder on SQLite starts from the run's deployed template (data-template.ts), not from genesis.
  const template = dir && storeKind === "sqlite" ? templateKey(opts.config ?? {}, clock()) : undefined;
  if (template) await fromTemplate(template, dataDir, (into) => makeTemplate({ ...input, dataDir: into }));
  const config = resolveConfig(input);
  const daemon = await startDaemonWithParts({ config, clock, log: opts.log ?? pino({ level: process.env.TEST_DAEMON_LOG ?? "silent" }), authSettings: opts.authSettings, startOracle: opts.startOracle });
  // Every JSON answer this daemon gives a test is checked against the operation's documented schema.
  const unwatch = watchDaemon(daemon.url, daemon.routes);
  return {
    daemon,
    url: daemon.url,
    dataDir,
    clock,
    http: httpClient(daemon.url),
    async close() {
      unwatch();
      // The folder is deleted next: the chain's last snapshot (1-2 s of Anvil here) would be thrown away.
      if (dir) daemon.chain.embedded?.skipLastSnapshot();
      await daemon.stop();
      dir?.remove();
    },
  };
}

/** A daemon started on `input` from nothing and stopped: its data directory is a template. */
async function makeTemplate(input: ConfigInput): Promise<void> {
  const daemon = await startDaemonWithParts({ config: resolveConfig(input), log: pino({ level: "silent" }), startOracle: false });
  await daemon.stop();
}

export interface Reply {
  status: number;
  headers: Headers;
  body: any;
}

export interface RequestOptions {
  token?: string;
  cookie?: string;
  headers?: Record<string, string>;
  /** Sent as is (no JSON encoding), with the given headers. */
  raw?: string;
}

export type HttpClient = ReturnType<typeof httpClient>;

export function httpClient(base: string) {
  async function request(method: string, path: string, body?: unknown, o: RequestOptions = {}): Promise<Reply> {
    const headers: Record<string, string> = { ...o.headers };
    if (o.token) headers.Authorization = `Bearer ${o.token}`;
    if (o.cookie) headers.Cookie = o.cookie;
    let payload: string | undefined = o.raw;
    if (payload === undefined && body !== undefined) {
      payload = JSON.stringify(body);
      headers["Content-Type"] ??= "application/json";
    }
    const res = await fetch(`${base}${path}`, { method, headers, body: payload });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      /* not JSON: tests look at the text */
    }
    return { status: res.status, headers: res.headers, body: parsed };
  }
  return {
    request,
    get: (path: string, o?: RequestOptions) => request("GET", path, undefined, o),
    post: (path: string, body?: unknown, o?: RequestOptions) => request("POST", path, body, o),
    del: (path: string, o?: RequestOptions) => request("DELETE", path, undefined, o),
  };
}

/** Challenge + personal_sign + login, as a wallet would. Returns the token and the Set-Cookie line. */
export async function signIn(http: HttpClient, wallet: Wallet | HDNodeWallet) {
  const challenge = await http.post("/api/auth/challenge", { address: wallet.address });
  if (challenge.status !== 200) throw new Error(`challenge failed: ${JSON.stringify(challenge.body)}`);
  const signature = await wallet.signMessage(challenge.body.data.message);
  const login = await http.post("/api/auth/login", { address: wallet.address, signature, nonce: challenge.body.data.nonce });
  if (login.status !== 200) throw new Error(`login failed: ${JSON.stringify(login.body)}`);
  return { token: login.body.data.user.sessionToken as string, setCookie: login.headers.get("set-cookie") ?? "" };
}

/** A new random key: not `Wallet.createRandom()`, whose mnemonic costs 50-100 ms a wallet here. */
export const randomWallet = () => new Wallet(hexlify(randomBytes(32)));

/** Credits test USDC on the embedded sim through its loopback control. */
export async function faucet(d: TestDaemon, user: string, amount: number | string) {
  const res = await fetch(`${d.daemon.sim!.url}/sim/faucet`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ user, amount }),
  });
  if (!res.ok) throw new Error(`faucet failed: ${res.status} ${await res.text()}`);
}

/** GET /api/agent, sign the approveAgent typed data with the master wallet, POST it back. */
export async function approveAgent(http: HttpClient, token: string, wallet: Wallet | HDNodeWallet) {
  const status = await http.get("/api/agent", { token });
  if (status.status !== 200) throw new Error(`agent status failed: ${JSON.stringify(status.body)}`);
  if (status.body.data.approved) return status.body.data;
  const { nonce, typedData } = status.body.data.approval;
  const { EIP712Domain: _domain, ...types } = typedData.types;
  const signature = await wallet.signTypedData(typedData.domain, types, typedData.message);
  const approved = await http.post("/api/agent/approve", { nonce, signature }, { token });
  if (approved.status !== 200) throw new Error(`approve failed: ${JSON.stringify(approved.body)}`);
  return approved.body.data;
}

/** A signed-in user with sim USDC and an approved agent, ready to trade. */
export async function trader(d: TestDaemon, usdc: number | string = 100_000) {
  const wallet = randomWallet();
  const { token } = await signIn(d.http, wallet);
  await faucet(d, wallet.address, usdc);
  await approveAgent(d.http, token, wallet);
  return { wallet, token };
}

/** Signs EIP-712 typed data as handed out by the API (EIP712Domain included). */
export function signTyped(wallet: Wallet | HDNodeWallet, td: { domain: any; types: Record<string, any>; message: any }) {
  const { EIP712Domain: _d, ...types } = td.types;
  return wallet.signTypedData(td.domain, types, td.message);
}

export interface Party {
  wallet: Wallet | HDNodeWallet;
  token: string;
  address: string;
}

export async function party(d: TestDaemon, opts: { usdc?: number; agent?: boolean } = {}): Promise<Party> {
  const wallet = randomWallet();
  const { token } = await signIn(d.http, wallet);
  if (opts.usdc) await faucet(d, wallet.address, opts.usdc);
  if (opts.agent) await approveAgent(d.http, token, wallet);
  return { wallet, token, address: wallet.address };
}

/** A vault between two parties through the real path: proposal, both EIP-712 signatures, relay. */
export async function createVault(d: TestDaemon, investor: Party, trader: Party, terms: Record<string, unknown> = {}) {
  const body = {
    investor: investor.address, trader: trader.address, initialBalance: "10000", maxDrawdown: 10, dailyDrawdown: 5,
    dealDeadline: Math.floor(d.clock() / 1000) + 30 * 86_400, profitShare: { trader: 20, investor: 80 }, ...terms,
  };
  const created = await d.http.post("/api/proposals", body, { token: trader.token });
  if (created.status !== 200) throw new Error(`proposal failed: ${JSON.stringify(created.body)}`);
  const p = created.body.data.proposal;
  await d.http.post(`/api/proposals/${p.id}/accept`, { signature: await signTyped(trader.wallet, p.typedData) }, { token: trader.token });
  const done = await d.http.post(`/api/proposals/${p.id}/accept`, { signature: await signTyped(investor.wallet, p.typedData) }, { token: investor.token });
  if (!done.body.data?.proposal?.vaultAddress) throw new Error(`vault not deployed: ${JSON.stringify(done.body)}`);
  return done.body.data.proposal.vaultAddress as string;
}

/** An order request the sim received (POST /exchange with an "order" action). */
export interface SimOrderRequest {
  id: number;
  cloids: string[];
  /** True once the sim processed it (placed or rejected it), even if its answer is still held or was lost. */
  processed: boolean;
  /** True while the answer has not been sent (a `delay` fault holds it). */
  held: boolean;
}

/** The sim's request log id to count from: requests logged later have larger ids. */
export const simMark = (d: TestDaemon): number => d.daemon.sim!.requests.at(-1)?.id ?? 0;

/** Order requests the sim received after `mark` (see simMark), oldest first. */
export function simOrders(d: TestDaemon, mark = 0): SimOrderRequest[] {
  return d.daemon.sim!.requests
    .filter((r) => r.id > mark && r.path === "/exchange" && (r.body as any)?.action?.type === "order")
    .map((r) => ({
      id: r.id,
      cloids: ((r.body as any).action.orders as Array<{ c?: string }>).map((o) => o.c ?? ""),
      processed: r.result !== undefined,
      held: r.result !== undefined && r.status === undefined && r.fault === "delay",
    }));
}

/**
 * True when the sim holds (a `delay` fault, processed but not yet answered) a request logged after
 * `mark` whose body `matches`: the caller's request is then parked inside that exchange call.
 */
export const simHolds = (d: TestDaemon, mark: number, matches: (body: any) => boolean): boolean =>
  d.daemon.sim!.requests.some((r) => r.id > mark && r.fault === "delay" && r.result !== undefined && r.status === undefined && matches(r.body));
