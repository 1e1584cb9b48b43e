// A real HTTP endpoint on 127.0.0.1 that records what webhooks send it. Each path answers as the
// test scripts it (a status per attempt, a redirect, or no answer at all until released).
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createHmac, timingSafeEqual } from "node:crypto";

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

export type Script = { statuses?: number[]; hang?: boolean; redirect?: string };

export async function startReceiver() {
  const received: Received[] = [];
  const scripts = new Map<string, Script>();
  const held: ServerResponse[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      const path = req.url ?? "/";
      const seen = received.filter((r) => r.path === path).length;
      received.push({ path, headers: req.headers, body, at: Date.now() });
      const script = scripts.get(path.split("?")[0]!) ?? {};
      if (script.hang) return void held.push(res);
      if (script.redirect) {
        res.writeHead(302, { location: script.redirect });
        return void res.end();
      }
      res.statusCode = script.statuses?.[seen] ?? script.statuses?.at(-1) ?? 200;
      res.end("ok");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    received,
    /** The URL of a new path answering as `script` says. */
    url(path: string, script: Script = {}) {
      scripts.set(path, script);
      return `${base}${path}`;
    },
    at: (path: string) => received.filter((r) => r.path.split("?")[0] === path),
    /** Requests held open by a hanging path, still unanswered. */
    heldOpen: () => held.filter((r) => !r.writableEnded && !r.destroyed).length,
    async stop() {
      for (const r of held) r.destroy();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/**
 * The check docs/alerts.md tells receivers to make, written the same way: HMAC-SHA256 of "<t>.<raw body>"
 * keyed with the secret's UTF-8 bytes, compared in constant time, and the timestamp recent.
 */
export function verifySignature(secret: string, header: string | undefined, rawBody: string, nowSeconds = Math.floor(Date.now() / 1000)): boolean {
  const parts = Object.fromEntries((header ?? "").split(",").map((kv) => kv.split("=") as [string, string]));
  const t = Number(parts.t);
  if (!parts.v1 || !Number.isInteger(t) || Math.abs(nowSeconds - t) > 300) return false;
  const expected = createHmac("sha256", secret).update(`${t}.${rawBody}`).digest("hex");
  return expected.length === parts.v1.length && timingSafeEqual(Buffer.from(expected), Buffer.from(parts.v1));
}
