// Baseline server for http-read: a bare Koa app on loopback answering one JSON body to every
// request (serialized per request, as a plain Koa app does; the daemon serializes a party's list
// once per change of its database), with no middleware at all.
import Koa from "koa";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export function serve() {
  let server: Server | undefined;
  return {
    async start(body: unknown): Promise<{ url: string }> {
      const app = new Koa();
      app.use((ctx) => {
        ctx.body = body;
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
