// Composition root: config -> database -> services -> HTTP. The only place that knows every part.
import { readFileSync } from "node:fs";
import { createServer as createHttpServer, type Server } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import type Router from "@koa/router";
import type { Logger } from "pino";
import { createAuthService, type AuthSettings } from "./auth/auth-service.js";
import type { Config } from "./config.js";
import { openStore, type Store } from "./db/database.js";
import type { OrderRow } from "./db/schema.js";
import { buildApp } from "./http/app.js";
import { tokenBucket } from "./http/middleware/rate-limit.js";
import { buildOpenApi } from "./http/openapi.js";
import type { RouteSpec } from "./http/route.js";
import { accountRoutes } from "./http/routes/account-routes.js";
import { authRoutes } from "./http/routes/auth-routes.js";
import { metaRoutes } from "./http/routes/meta-routes.js";
import { packageRoot } from "./lib/package-root.js";
import { loadSecretKey, secretBox } from "./lib/secret-box.js";
import { createLogger } from "./log.js";
import { createHyperliquidAdapter, MAINNET_URL, TESTNET_URL } from "./exchange/hyperliquid-adapter.js";
import type { ExchangeAdapter } from "./exchange/types.js";
import { tradingRoutes } from "./http/routes/trading-routes.js";
import { createSimExchange, type SimExchange, type PriceFeedConfig } from "./sim/index.js";
import { createAccountViews } from "./trading/account-views.js";
import { createAgentService } from "./trading/agent-service.js";
import { createReconciler } from "./trading/reconciler.js";
import { createTradingService } from "./trading/trading-service.js";
import { noVaults } from "./trading/vault-gate.js";

/** Chain id named in sign-in messages until the chain module supplies the real one (Hardhat's). */
const EMBEDDED_CHAIN_ID = 31337;

export interface DaemonOptions {
  config: Config;
  log?: Logger;
  /** Milliseconds since the epoch; tests pass a controllable clock. */
  clock?: () => number;
  authSettings?: Partial<AuthSettings>;
}

export interface Daemon {
  /** Where the API listens, e.g. http://127.0.0.1:8420 */
  url: string;
  publicUrl: string;
  store: Store;
  /** The embedded sim exchange, when `--exchange sim`. */
  sim?: SimExchange;
  exchange: ExchangeAdapter;
  routes: RouteSpec[];
  router: Router;
  /** Settles one in-doubt order now (the background sweep does this every few seconds). */
  reconcile(cloid: string): Promise<OrderRow | undefined>;
  stop(): Promise<void>;
}

export const packageVersion = (): string =>
  JSON.parse(readFileSync(join(packageRoot(), "package.json"), "utf8")).version as string;

function listen(server: Server, host: string, port: number): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve(server.address() as AddressInfo);
    });
  });
}

export async function startDaemon(opts: DaemonOptions): Promise<Daemon> {
  const { config } = opts;
  const log = opts.log ?? createLogger(config.logLevel);
  const clock = opts.clock ?? Date.now;
  const version = packageVersion();

  const store = await openStore(join(config.dataDir, `tradevault-${config.network}.db`));
  const sim = config.exchange === "sim" ? createSim(config, clock) : undefined;
  try {
    await sim?.start();
  } catch (err) {
    await store.close();
    throw err;
  }
  const timeoutMs = config.exchangeTimeout * 1000;
  const exchange = sim
    ? createHyperliquidAdapter({ kind: "sim", url: sim.url, isTestnet: true, clock, timeoutMs })
    : config.exchange === "hyperliquid-testnet"
      ? createHyperliquidAdapter({ kind: "hyperliquid-testnet", url: TESTNET_URL, isTestnet: true, clock, timeoutMs })
      : createHyperliquidAdapter({ kind: "hyperliquid", url: MAINNET_URL, isTestnet: false, clock, timeoutMs });
  const server =
    config.tlsCert && config.tlsKey
      ? createHttpsServer({ cert: readFileSync(config.tlsCert), key: readFileSync(config.tlsKey) })
      : createHttpServer();
  let addr: AddressInfo;
  try {
    addr = await listen(server, config.host, config.port);
  } catch (err) {
    await sim?.stop();
    await store.close();
    throw err;
  }
  const scheme = config.tlsCert ? "https" : "http";
  const hostForUrl = addr.family === "IPv6" ? `[${addr.address}]` : addr.address;
  const url = `${scheme}://${hostForUrl}:${addr.port}`;
  const publicUrl = config.publicUrl ? new URL(config.publicUrl).origin : url;

  const auth = createAuthService({
    store,
    clock,
    origin: () => ({ publicUrl, chainId: EMBEDDED_CHAIN_ID }),
    settings: { sessionMaxAgeMs: config.sessionMaxAgeDays * 86_400_000, ...opts.authSettings },
  });
  const box = secretBox(loadSecretKey({ secret: process.env.TRADEVAULT_SECRET, keyFile: join(config.dataDir, "keys", "secret.key") }));
  const agents = createAgentService({ db: store.db, exchange, box, clock });
  const reconciler = createReconciler({ db: store.db, exchange, clock, log });
  const trading = createTradingService({
    store, exchange, agents, vaults: noVaults, reconciler, clock, log,
    slippageBps: Math.round(config.marketSlippage * 100), orderTtlMs: 30_000,
  });
  const views = createAccountViews({ db: store.db, exchange, agents, accountFor: trading.accountFor, clock });
  const started = clock();
  const routes: RouteSpec[] = [];
  let openApi: unknown;
  routes.push(
    ...metaRoutes({
      health: async () => ({
        status: "ok",
        version,
        uptimeSeconds: Math.floor((clock() - started) / 1000),
        database: { status: "ok", network: config.network },
        exchange: { kind: exchange.kind, url: exchange.url, isTestnet: exchange.isTestnet },
      }),
      openApi: () => (openApi ??= buildOpenApi(routes, { version, serverUrl: publicUrl })),
    }),
    ...authRoutes(auth),
    ...accountRoutes({ exchange, agents }),
    ...tradingRoutes({ trading, views, agents }),
  );
  const allowed = new Set([new URL(publicUrl).origin, new URL(url).origin, ...config.corsOrigins]);
  const { app, router } = buildApp({
    log,
    auth,
    routes,
    limiters: {
      signIn: tokenBucket({ capacity: config.signInRateLimit, perMs: 60_000, clock }),
      orders: tokenBucket({ capacity: config.orderRateLimit, perMs: 1_000, clock }),
    },
    allowedOrigins: () => allowed,
    corsOrigins: config.corsOrigins,
    trustProxy: config.trustProxy,
  });
  server.on("request", app.callback());
  reconciler.start(5_000);
  log.info({ url, publicUrl, dataDir: config.dataDir, network: config.network }, `tradevaultd listening on ${url}`);

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      log.info("shutting down: no new connections, finishing requests in flight");
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const timer = setTimeout(() => server.closeAllConnections(), 10_000);
      await closed;
      clearTimeout(timer);
      await reconciler.stop();
      await sim?.stop();
      await store.close();
      log.info("stopped");
    })());

  return { url, publicUrl, store, sim, exchange, routes, router, reconcile: (cloid) => reconciler.settle(cloid), stop };
}

function simFeed(spec: string): PriceFeedConfig {
  if (spec === "random") return { kind: "random-walk", seed: 1, intervalMs: 1_000 };
  if (spec === "static") return { kind: "static" };
  return { kind: "csv", path: spec, intervalMs: 1_000 } as PriceFeedConfig;
}

export function createSim(config: Config, clock: () => number): SimExchange {
  return createSimExchange({
    host: "127.0.0.1",
    port: config.simPort,
    dbPath: join(config.dataDir, "sim-exchange.db"),
    network: "Testnet",
    priceFeed: simFeed(config.simFeed),
    clock,
  });
}
