// The API's listening socket and the address it gives: the daemon's own URL, the public URL sign-in
// messages name, and the origins a browser may send credentialed requests from. The address is known
// only once the port is open (--port 0), so the server listens before the app exists and the app is
// built from the address; see startDaemon for why no request is read in between.
import { readFileSync } from "node:fs";
import { createServer as createHttpServer, type Server } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import type { Config } from "./config.js";
import { answerClientError } from "./http/client-error.js";

export interface ListenAddress {
  /** Where the API listens, e.g. http://127.0.0.1:8420 */
  url: string;
  /** The origin sign-in messages name and /api/openapi.json gives: --public-url, or `url`. */
  publicUrl: string;
  /** The daemon's own origins and the configured CORS origins. */
  allowedOrigins: Set<string>;
}

export interface Listening {
  server: Server;
  address: ListenAddress;
}

function listen(server: Server, host: string, port: number): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve(server.address() as AddressInfo);
    });
  });
}

/** Fails fast when the port is taken, before anything is deployed or started. */
export async function assertPortFree(host: string, port: number): Promise<void> {
  if (port === 0) return;
  const probe = createHttpServer();
  try {
    await listen(probe, host, port);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new Error(code === "EADDRINUSE" ? `${host}:${port} is already in use (another tradevaultd?); choose --port` : `cannot listen on ${host}:${port}: ${(err as Error).message}`, { cause: err });
  }
  await new Promise<void>((r) => probe.close(() => r()));
}

export function addressOf(config: Config, addr: AddressInfo): ListenAddress {
  const hostForUrl = addr.family === "IPv6" ? `[${addr.address}]` : addr.address;
  const url = `${config.tlsCert ? "https" : "http"}://${hostForUrl}:${addr.port}`;
  const publicUrl = config.publicUrl ? new URL(config.publicUrl).origin : url;
  return { url, publicUrl, allowedOrigins: new Set([new URL(publicUrl).origin, new URL(url).origin, ...config.corsOrigins]) };
}

/** An HTTP(S) server listening on --host/--port, with no request handler yet. */
export async function listenForApi(config: Config): Promise<Listening> {
  const server = config.tlsCert && config.tlsKey
    ? createHttpsServer({ cert: readFileSync(config.tlsCert), key: readFileSync(config.tlsKey) })
    : createHttpServer();
  // Clients reuse a kept-alive connection after slow local steps (the CLI unlocks a keystore between
  // two requests): closing idle sockets after Node's 5 s raced them into ECONNRESET. Keep them for a
  // minute, as proxies do; the client is told (Keep-Alive: timeout=65) and closes first.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  server.on("clientError", answerClientError);
  const addr = await listen(server, config.host, config.port);
  return { server, address: addressOf(config, addr) };
}

export const closeServer = (server: Server) => new Promise<void>((r) => server.close(() => r()));
