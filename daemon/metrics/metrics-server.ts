// GET /metrics on its own port (--metrics-port), apart from the API: no session, no envelope, no rate
// limit, and nothing else on it. It listens where the API does (--host, 127.0.0.1 by default) so a
// scraper on the box reaches it and the world does not, unless the operator said otherwise.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Metrics } from "./metrics.js";

export interface MetricsServer {
  /** e.g. http://127.0.0.1:9464/metrics */
  url: string;
  stop(): Promise<void>;
}

function handler(metrics: Metrics) {
  return (req: import("node:http").IncomingMessage, res: import("node:http").ServerResponse) => {
    const path = (req.url ?? "/").split("?")[0];
    if (path !== "/metrics") {
      res.writeHead(404, { "Content-Type": "text/plain; charset=utf-8" }).end("not found: this port serves GET /metrics only\n");
      return;
    }
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405, { Allow: "GET, HEAD", "Content-Type": "text/plain; charset=utf-8" }).end("method not allowed\n");
      return;
    }
    metrics.scrape().then(
      (text) => {
        res.writeHead(200, { "Content-Type": metrics.registry.contentType });
        res.end(req.method === "HEAD" ? undefined : text);
      },
      (err: Error) => {
        res.writeHead(500, { "Content-Type": "text/plain; charset=utf-8" }).end(`metrics unavailable: ${err.message}\n`);
      },
    );
  };
}

export async function startMetricsServer(metrics: Metrics, host: string, port: number): Promise<MetricsServer> {
  const server: Server = createServer(handler(metrics));
  const addr = await new Promise<AddressInfo>((resolve, reject) => {
    server.once("error", (err: NodeJS.ErrnoException) =>
      reject(new Error(err.code === "EADDRINUSE" ? `--metrics-port ${port} is in use on ${host}` : `cannot serve metrics on ${host}:${port}: ${err.message}`, { cause: err })));
    server.listen(port, host, () => resolve(server.address() as AddressInfo));
  });
  const hostForUrl = addr.family === "IPv6" ? `[${addr.address}]` : addr.address;
  return {
    url: `http://${hostForUrl}:${addr.port}/metrics`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
