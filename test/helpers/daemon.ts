// Starts a real daemon in-process on a free loopback port with its own data directory, and gives
// tests a small HTTP client and a controllable clock.
import { Wallet, type HDNodeWallet } from "ethers";
import pino from "pino";
import { resolveConfig, type ConfigInput } from "../../daemon/config.js";
import { startDaemon, type Daemon } from "../../daemon/main.js";
import type { AuthSettings } from "../../daemon/auth/auth-service.js";
import { tempDir } from "./util.js";

export interface FakeClock {
  (): number;
  advance(ms: number): void;
}

export function fakeClock(start = Date.now()): FakeClock {
  let now = start;
  const clock = (() => now) as FakeClock;
  clock.advance = (ms) => {
    now += ms;
  };
  return clock;
}

export interface TestDaemon {
  daemon: Daemon;
  url: string;
  dataDir: string;
  clock: FakeClock;
  http: HttpClient;
  close(): Promise<void>;
}

export async function startTestDaemon(
  opts: { config?: Partial<ConfigInput>; clock?: FakeClock; authSettings?: Partial<AuthSettings>; dataDir?: string } = {},
): Promise<TestDaemon> {
  const dir = opts.dataDir ? undefined : tempDir();
  const dataDir = opts.dataDir ?? dir!.path;
  const clock = opts.clock ?? fakeClock();
  const config = resolveConfig({ port: 0, dataDir, logLevel: "silent", signInRateLimit: 10_000, orderRateLimit: 10_000, simFeed: "static", ...opts.config });
  const daemon = await startDaemon({ config, clock, log: pino({ level: "silent" }), authSettings: opts.authSettings });
  return {
    daemon,
    url: daemon.url,
    dataDir,
    clock,
    http: httpClient(daemon.url),
    async close() {
      await daemon.stop();
      dir?.remove();
    },
  };
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

export const randomWallet = () => Wallet.createRandom();

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
