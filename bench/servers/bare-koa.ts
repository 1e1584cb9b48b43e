// Baseline server for http-read: a bare Koa app on loopback answering, on each path it is given, one
// JSON body (serialized per request, as a plain Koa app does), with no middleware at all.
import Koa from "koa";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export function serve() {
  let server: Server | undefined;
  return {
    /** `bodies`: path -> the JSON body answered there. */
    async start(bodies: Record<string, unknown>): Promise<{ url: string }> {
      const app = new Koa();
      app.use((ctx) => {
        ctx.body = bodies[ctx.path];
      });
      server = createServer(app.callback());
      await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
      return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
    },
    async close() {
      if (!server) return;
      server.closeAllConnections();
      await new Promise((r) => server!.close(r));
    },
  };
}
