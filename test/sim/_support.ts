// Shared set-up for the sim tests: a sim on 127.0.0.1:0 with a temporary SQLite file, the real SDK
// clients pointed at it, and a raw JSON poster for what the SDK cannot send.
import { ExchangeClient, HttpTransport, InfoClient } from "@nktkas/hyperliquid";
import { Wallet } from "ethers";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { createSimExchange, type SimExchange, type SimExchangeOptions } from "../../daemon/sim/index.js";
import { tempDir } from "../helpers/util.js";

export interface SimHarness {
  sim: SimExchange;
  dbPath: string;
  info: InfoClient;
  exchange(wallet: Wallet): ExchangeClient;
  /** Stops the sim (and removes its folder unless `keepDir`). */
  close(keepDir?: boolean): Promise<void>;
}

export async function startSim(options: Partial<SimExchangeOptions> = {}): Promise<SimHarness> {
  const dir = tempDir("tradevault-sim-");
  const dbPath = options.dbPath ?? join(dir.path, "sim.db");
  const sim = createSimExchange({ priceFeed: { kind: "static" }, ...options, dbPath });
  await sim.start();
  // No timeout: a slow answer on a busy machine is still an answer; a test waits on it.
  const transport = new HttpTransport({ apiUrl: sim.url, isTestnet: true, timeout: null });
  return {
    sim,
    dbPath,
    info: new InfoClient({ transport }),
    exchange: (wallet) => new ExchangeClient({ transport, wallet }),
    async close(keepDir = false) {
      await sim.stop();
      if (!keepDir) dir.remove();
    },
  };
}

export interface RawResponse {
  status: number;
  contentType: string;
  text: string;
  json?: any;
}

export async function postJson(base: string, path: string, body: unknown, headers: Record<string, string> = {}): Promise<RawResponse> {
  const res = await fetch(new URL(path, base), {
    method: "POST",
    headers: { "Content-Type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  const contentType = res.headers.get("content-type") ?? "";
  return { status: res.status, contentType, text, json: contentType.includes("json") ? JSON.parse(text) : undefined };
}

/** A fresh wallet with USDC from the faucet. */
export async function fundedWallet(sim: SimExchange, usdc: string | number = 10_000): Promise<Wallet> {
  const wallet = Wallet.createRandom();
  await sim.faucet(wallet.address, usdc);
  return new Wallet(wallet.privateKey);
}

/** Random 128-bit cloid with the top bit set (small cloids are coerced to numbers by the SDK). */
export function randomCloid(): `0x${string}` {
  const bytes = randomBytes(16);
  bytes[0] |= 0x80;
  return `0x${bytes.toString("hex")}`;
}

/** Statuses of an order/cancel call, whether the SDK resolved or threw ApiRequestError. */
export async function statusesOf(call: Promise<any>): Promise<any[]> {
  try {
    const res = await call;
    return res.response.data.statuses;
  } catch (e: any) {
    if (e?.response?.response?.data?.statuses) return e.response.response.data.statuses;
    throw e;
  }
}

/** A GTC buy far below the mark (it rests), with the given cloid: the fault tests' order. */
export const restingOrder = (c: `0x${string}`) => ({
  orders: [{ a: 0, b: true, p: "50000", s: "0.001", r: false, t: { limit: { tif: "Gtc" as const } }, c }],
  grouping: "na" as const,
});

/** The error `call` fails with; throws when it succeeds. */
export async function failure(call: Promise<unknown>): Promise<any> {
  try {
    await call;
  } catch (e) {
    return e;
  }
  throw new Error("expected the call to fail");
}

/** The status the sim reports for `user`'s order with this cloid ("unknownOid" when it never saw it). */
export async function statusByCloid(h: SimHarness, user: `0x${string}`, c: `0x${string}`): Promise<string> {
  const s: any = await h.info.orderStatus({ user, oid: c });
  return s.status === "order" ? s.order.status : s.status;
}
