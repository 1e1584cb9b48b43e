// Load generation: autocannon for throughput under concurrency (every response's latency is taken
// from its tracker, at full resolution, rather than from its whole-millisecond histogram), and a
// keep-alive HTTP client timing one request at a time for latency figures.
import autocannon from "autocannon";
import { Agent, request } from "node:http";
import { msSince, summarize, type LatencySummary } from "./stats.js";

export interface CannonResult extends LatencySummary {
  rps: number;
  total: number;
  /** Responses that were not 2xx, plus socket errors and timeouts. */
  failed: number;
}

export interface CannonOptions {
  url: string;
  connections: number;
  durationS: number;
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  body?: string;
}

export async function cannon(o: CannonOptions): Promise<CannonResult> {
  const latencies: number[] = [];
  const instance = autocannon({
    url: o.url, connections: o.connections, duration: o.durationS, method: o.method ?? "GET",
    headers: o.headers, body: o.body, pipelining: 1, timeout: 10,
  });
  instance.on("response", (_client: unknown, _status: number, _bytes: number, responseTime: number) => latencies.push(responseTime));
  const result = await instance;
  const failed = result.non2xx + result.errors + result.timeouts;
  return { rps: result.requests.total / (result.duration || o.durationS), total: result.requests.total, failed, ...summarize(latencies) };
}

export interface Reply {
  status: number;
  body: any;
}

export interface Client {
  send(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Reply>;
  close(): void;
}

const parse = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
};

/**
 * One keep-alive connection; JSON in and out. A request that fails on a reused socket the server had
 * just closed (its keep-alive timeout) is sent again once, on a new socket.
 */
export function httpClient(base: string): Client {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const { hostname: host, port } = new URL(base);
  const send = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}, retried = false): Promise<Reply> =>
    new Promise<Reply>((resolve, reject) => {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const json = payload ? { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(payload) } : {};
      const req = request({ agent, host, port, path, method, headers: { ...headers, ...json } }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: parse(Buffer.concat(chunks).toString("utf8")) }));
        res.on("error", reject);
      });
      req.on("error", (err: NodeJS.ErrnoException) => {
        if (req.reusedSocket && err.code === "ECONNRESET" && !retried) resolve(send(method, path, body, headers, true));
        else reject(err);
      });
      req.end(payload);
    });
  return { send, close: () => agent.destroy() };
}

/**
 * Times `a` and `b` one call at a time, alternately (a, b, b, a, a, b...), so that drift on the machine
 * (other work, the disk) lands on both alike: what their difference needs.
 */
export async function timeInterleaved(
  a: () => Promise<void>, b: () => Promise<void>, count: number,
): Promise<[number[], number[]]> {
  const [ta, tb] = await timeRotated([a, b], count);
  return [ta!, tb!];
}

/** timeInterleaved for any number of calls: round i starts at call i mod n, so each takes each place as often. */
export async function timeRotated(fns: Array<() => Promise<void>>, count: number): Promise<number[][]> {
  const out = fns.map(() => [] as number[]);
  for (let i = 0; i < count; i++) {
    for (let j = 0; j < fns.length; j++) {
      const k = (i + j) % fns.length;
      const t = process.hrtime.bigint();
      await fns[k]!();
      out[k]!.push(msSince(t));
    }
  }
  return out;
}

/** Times `count` calls of `fn`, one at a time, after `warmup` untimed ones: latencies in ms. */
export async function timeSequential(fn: (i: number) => Promise<void>, count: number, warmup = 0): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await fn(i);
  const out: number[] = [];
  for (let i = 0; i < count; i++) {
    const t = process.hrtime.bigint();
    await fn(warmup + i);
    out.push(msSince(t));
  }
  return out;
}
