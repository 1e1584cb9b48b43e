// The exchange's per-IP request budget, one per daemon, in front of one `tradevaultd --sim-only`.
// On Hyperliquid each daemon's box has its own IP and so its own 1200 weight a minute, which the
// daemon's own limiter spends; against a sim (--exchange-url) that limiter is off (the sim has no
// budget: daemon/venue.ts). So each daemon of the benchmark reaches the sim through a proxy of its own
// that charges every request its Hyperliquid weight to the daemon's limiter itself
// (exchange/weight-limiter.ts, HYPERLIQUID_WEIGHT: info reads at background priority, actions at
// trading priority) and holds the request until the weight is there, as the limiter holds the call.
// Two differences with the limiter inside the daemon, each closed here: the wait now happens inside
// the daemon's HTTP request (so the benchmark gives the daemons a longer --exchange-timeout), and a
// request the daemon gave up on meanwhile must not spend weight later (it is dropped unsent). As the
// limiter gives up on a wait of more than 30 s, a request still waiting after 30 s is refused (a 429).
import { createServer, request, Agent, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { HYPERLIQUID_WEIGHT, weightLimiter, type WeightLimiter } from "../../daemon/exchange/weight-limiter.js";

/** open: no budget (set-up); full: a fresh bucket, as a daemon starts; drained: at the floor background work may not dip under, as after running at capacity. */
export type BudgetMode = "open" | "full" | "drained";

export interface ProxyStats {
  requests: number;
  weight: number;
  /** Time requests waited for weight, summed, ms. */
  waitedMs: number;
  /** Requests the daemon gave up on while they waited (not sent), and those refused after MAX_WAIT_MS. */
  dropped: number;
  refused: number;
}

/** Hyperliquid's weight of a request (SHARED HYPERLIQUID.md, rate limits); paths other than /info and /exchange cost nothing. */
export function requestWeight(path: string, body: any): number {
  if (path === "/info") {
    if (["l2Book", "allMids", "clearinghouseState", "orderStatus", "spotClearinghouseState", "exchangeStatus"].includes(body?.type)) return 2;
    return body?.type === "userRole" ? 60 : 20;
  }
  if (path === "/exchange") {
    const batch = body?.action?.orders?.length ?? body?.action?.cancels?.length ?? 1;
    return 1 + Math.floor(batch / 40);
  }
  return 0;
}

interface Proxy {
  server: Server;
  limiter?: WeightLimiter;
  stats: ProxyStats;
}

/** The daemon's limiter gives up on a wait this long (weight-limiter.ts maxWaitMs). */
export const MAX_WAIT_MS = 30_000;

/** Takes `weight` from the limiter once it has it; "gone" if the client left first, "late" past MAX_WAIT_MS. */
async function take(limiter: WeightLimiter, weight: number, priority: "background" | "trading", gone: () => boolean): Promise<"ok" | "gone" | "late"> {
  const floor = priority === "background" ? HYPERLIQUID_WEIGHT.reservedForTrading : 0;
  const deadline = Date.now() + MAX_WAIT_MS;
  while (limiter.available() - weight < floor) {
    if (gone()) return "gone";
    if (Date.now() > deadline) return "late";
    await new Promise((r) => setTimeout(r, 20));
  }
  await limiter.acquire(weight, { priority }); // there now: taken at once
  return "ok";
}

function bucket(mode: BudgetMode): WeightLimiter | undefined {
  if (mode === "open") return undefined;
  const limiter = weightLimiter({ ...HYPERLIQUID_WEIGHT });
  // Trading may spend down to zero, background work down to the reserve: this leaves the reserve.
  if (mode === "drained") void limiter.acquire(HYPERLIQUID_WEIGHT.perMinute - HYPERLIQUID_WEIGHT.reservedForTrading);
  return limiter;
}

export function serve() {
  const proxies: Proxy[] = [];
  const agent = new Agent({ keepAlive: true });
  let target: URL;

  async function forward(p: Proxy, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString("utf8") || "null");
    } catch {
      parsed = null;
    }
    const path = (req.url ?? "/").split("?")[0]!;
    const weight = requestWeight(path, parsed);
    const started = Date.now();
    let closed = false;
    res.on("close", () => (closed = true));
    const taken = p.limiter && weight > 0 ? await take(p.limiter, weight, path === "/info" ? "background" : "trading", () => closed) : "ok";
    p.stats.waitedMs += Date.now() - started;
    if (taken === "gone") return void (p.stats.dropped += 1);
    if (taken === "late") {
      p.stats.refused += 1;
      return void res.writeHead(429, { "Content-Type": "text/plain" }).end("the request budget is spent");
    }
    Object.assign(p.stats, { requests: p.stats.requests + 1, weight: p.stats.weight + weight });
    const out = request({ agent, host: target.hostname, port: target.port, path: req.url, method: req.method, headers: { ...req.headers, host: target.host } }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    out.on("error", (err) => res.writeHead(502).end(err.message));
    out.end(body);
  }

  return {
    /** `count` proxies to the sim at `simUrl`, open; their URLs. */
    async start(simUrl: string, count: number): Promise<string[]> {
      target = new URL(simUrl);
      for (let i = 0; i < count; i++) {
        const p: Proxy = { server: createServer(), stats: { requests: 0, weight: 0, waitedMs: 0, dropped: 0, refused: 0 } };
        p.server.on("request", (req, res) => void forward(p, req, res).catch(() => res.writeHead(502).end()));
        await new Promise<void>((r) => p.server.listen(0, "127.0.0.1", r));
        proxies.push(p);
      }
      return proxies.map((p) => `http://127.0.0.1:${(p.server.address() as AddressInfo).port}`);
    },
    /** Every proxy's budget from now on. */
    budget(mode: BudgetMode): void {
      for (const p of proxies) p.limiter = bucket(mode);
    },
    stats: (): ProxyStats[] => proxies.map((p) => ({ ...p.stats })),
    async close() {
      agent.destroy();
      await Promise.all(proxies.map((p) => new Promise((r) => {
        p.server.close(r);
        p.server.closeAllConnections();
      })));
    },
  };
}
