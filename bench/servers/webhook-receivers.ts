// Webhook receivers for the alerts benchmark, in a process of their own: one HTTP server on loopback
// with `count` endpoints (/hook/<n>), each noting when a delivery arrived (this process's clock, the
// same machine's as the daemon's), its delivery id and the event it carried. Endpoints told to hang
// hold their requests unanswered (as a dead endpoint that accepts connections does) until told to
// answer again, when the held ones are answered 200.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface Receipt {
  hook: number;
  /** Unix ms the whole body had arrived. */
  atMs: number;
  delivery: string;
  eventType: string;
  vault: string;
}

export function serve() {
  const receipts: Receipt[] = [];
  let hanging = new Set<number>();
  const held: ServerResponse[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const hook = Number(/^\/hook\/(\d+)$/.exec(req.url ?? "")?.[1] ?? NaN);
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const atMs = Date.now();
      if (Number.isNaN(hook)) return void res.writeHead(404).end();
      if (hanging.has(hook)) return void held.push(res);
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { type?: string; vault?: string; event?: { type?: string; vault?: string } };
        receipts.push({
          hook, atMs, delivery: String(req.headers["x-tradevault-delivery"] ?? ""),
          eventType: body.event?.type ?? body.type ?? "", vault: (body.event?.vault ?? body.vault ?? "").toLowerCase(),
        });
      } catch {
        /* not a json delivery: not counted */
      }
      res.writeHead(200, { "Content-Type": "text/plain" }).end("ok");
    });
  });

  return {
    /** Listens on a free loopback port; the endpoints' URLs. */
    async start(count: number): Promise<string[]> {
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      const { port } = server.address() as AddressInfo;
      return Array.from({ length: count }, (_, i) => `http://127.0.0.1:${port}/hook/${i}`);
    },
    /** From now, these endpoints hold their requests; an empty list answers every held one. */
    hang(hooks: number[]): number {
      hanging = new Set(hooks);
      if (hooks.length > 0) return 0;
      const n = held.length;
      for (const res of held.splice(0)) if (!res.destroyed) res.writeHead(200).end("ok");
      return n;
    },
    /** Receipts of `eventType` noted so far. */
    receipts: (eventType: string): Receipt[] => receipts.filter((r) => r.eventType === eventType),
    close: () => new Promise<void>((resolve) => {
      for (const res of held.splice(0)) res.destroy();
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
