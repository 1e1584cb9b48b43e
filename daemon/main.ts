// Composition root: config -> database -> chain -> exchange -> services -> HTTP. The only place that
// knows every part, and the one place that starts and stops them, in order.
import type Router from "@koa/router";
import { readFileSync } from "node:fs";
import { createServer as createHttpServer, type Server } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import type { Logger } from "pino";
import { createAuthService, type AuthSettings } from "./auth/auth-service.js";
import { startChain, type Chain } from "./chain/chain.js";
import { mintSettlementToken } from "./chain/deploy.js";
import { loadOrCreateOperatorKey, readOperatorKeyFile } from "./chain/operator-key.js";
import { composeServices } from "./compose-services.js";
import type { Enforcement } from "./vaults/enforcement.js";
import type { Config } from "./config.js";
import { openStore, type Store } from "./db/database.js";
import { knownVaults } from "./db/vaults-repo.js";
import type { OrderRow } from "./db/schema.js";
import { createHyperliquidAdapter, MAINNET_URL, TESTNET_URL } from "./exchange/hyperliquid-adapter.js";
import { createPriceStream } from "./exchange/price-stream.js";
import type { ExchangeAdapter } from "./exchange/types.js";
import { weightLimiter } from "./exchange/weight-limiter.js";
import { buildApp } from "./http/app.js";
import { tokenBucket } from "./http/middleware/rate-limit.js";
import { buildOpenApi } from "./http/openapi.js";
import type { RouteSpec } from "./http/route.js";
import { metaRoutes } from "./http/routes/meta-routes.js";
import { simRoutes } from "./http/routes/sim-routes.js";
import { healthCheck } from "./health.js";
import { packageVersion } from "./lib/package-root.js";
import { loadSecretKey, secretBox } from "./lib/secret-box.js";
import { createLogger } from "./log.js";
import { createMetrics, type Metrics } from "./metrics/metrics.js";
import { meteredLimiter, type MeteredLimiter } from "./metrics/metered-limiter.js";
import { startMetricsServer } from "./metrics/metrics-server.js";
import type { Oracle } from "./oracle/oracle.js";
import { loadOrCreateOperatorToken, operatorTokenPath } from "./paper/operator-token.js";
import { paperControls, type PaperControls } from "./paper/paper-controls.js";
import { createSimExchange, type PriceFeedConfig, type SimExchange } from "./sim/index.js";
import { chainOps } from "./vaults/chain-ops.js";
import { applyChainEvents } from "./vaults/vault-events.js";

export interface DaemonOptions {
  config: Config;
  log?: Logger;
  /** Milliseconds since the epoch; tests pass a controllable clock. */
  clock?: () => number;
  authSettings?: Partial<AuthSettings>;
  /** Tests drive oracle cycles themselves. */
  startOracle?: boolean;
}

export interface Daemon {
  /** Where the API listens, e.g. http://127.0.0.1:8420 */
  url: string;
  publicUrl: string;
  store: Store;
  /** The embedded sim exchange, when `--exchange sim`. */
  sim?: SimExchange;
  exchange: ExchangeAdapter;
  chain: Chain;
  oracle: Oracle;
  /** Each paused vault's breach policy, enforced (tests trigger runs as a pause would). */
  enforcement: Enforcement;
  routes: RouteSpec[];
  router: Router;
  /** GET /metrics, when --metrics-port is set. */
  metricsUrl?: string;
  /** Settles one in-doubt order now (the background sweep does this every few seconds). */
  reconcile(cloid: string): Promise<OrderRow | undefined>;
  stop(): Promise<void>;
}

export { packageVersion };

function listen(server: Server, host: string, port: number): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve(server.address() as AddressInfo);
    });
  });
}

/** Fails fast when the port is taken, before anything is deployed or started (the server listens only once ready). */
async function assertPortFree(host: string, port: number): Promise<void> {
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

/**
 * The exchange adapter and the meter of its request weight (every read and action, the oracle's, the
 * early writes' and the traders' alike), which /healthz and /metrics report.
 */
function createExchange(config: Config, sim: SimExchange | undefined, clock: () => number): { exchange: ExchangeAdapter; meter: MeteredLimiter } {
  const timeoutMs = config.exchangeTimeout * 1000;
  // The sim has no request budget; Hyperliquid's (1200 weight a minute per IP) applies to the real venue only.
  const paper = sim !== undefined || config.exchangeUrl !== undefined;
  const meter = meteredLimiter(paper ? weightLimiter({ perMinute: 1e9 }) : weightLimiter({ perMinute: 1200, reservedForTrading: 200, clock }), clock);
  const adapter = (kind: ExchangeAdapter["kind"], url: string, isTestnet: boolean) =>
    ({ exchange: createHyperliquidAdapter({ kind, url, isTestnet, clock, timeoutMs, limiter: meter }), meter });
  if (sim) return adapter("sim", sim.url, true);
  // A sim elsewhere (`tradevaultd --sim-only`): paper trading, signed as testnet, no request budget either.
  if (config.exchangeUrl) return adapter("sim", config.exchangeUrl, true);
  if (config.exchange === "hyperliquid-testnet") return adapter("hyperliquid-testnet", TESTNET_URL, true);
  return adapter("hyperliquid", MAINNET_URL, false);
}

async function operatorKey(config: Config) {
  if (config.operatorKeyFile) return readOperatorKeyFile(config.operatorKeyFile, process.env.TRADEVAULT_OPERATOR_PASSWORD);
  return loadOrCreateOperatorKey(join(config.dataDir, "keys", "operator.key"));
}

export async function startDaemon(opts: DaemonOptions): Promise<Daemon> {
  const { config } = opts;
  const log = opts.log ?? createLogger(config.logLevel);
  const clock = opts.clock ?? Date.now;
  const version = packageVersion();
  const metrics = config.metricsPort === undefined ? undefined : createMetrics();
  // What has started so far, stopped in reverse if a later step fails.
  const undo: Array<() => Promise<void>> = [];
  const cleanup = async () => {
    for (const f of undo.reverse()) await f().catch(() => undefined);
  };

  try {
    await assertPortFree(config.host, config.port);
    const store = await openStore(join(config.dataDir, `tradevault-${config.network}.db`));
    undo.push(() => store.close());
    const key = await operatorKey(config);
    const chain = await startChain({
      dataDir: config.dataDir, store, log, clock, operatorKey: key.privateKey,
      sink: { knownVaults: (addresses) => knownVaults(store.db, addresses), apply: applyChainEvents },
      embedded: { port: config.chainPort, snapshotIntervalS: config.chainSnapshotInterval, compactEveryBlocks: config.chainCompactBlocks },
      onConfirmed: metrics?.onConfirmed,
      external: config.rpcUrl
        ? { rpcUrl: config.rpcUrl, chainId: config.chainId!, factory: config.factoryAddress, token: config.settlementToken }
        : undefined,
    });
    undo.push(() => chain.stop());
    const sim = config.exchange === "sim" && !config.exchangeUrl ? createSim(config, clock, chain) : undefined;
    if (sim) {
      await sim.start();
      undo.push(() => sim.stop());
    }
    const { exchange, meter } = createExchange(config, sim, clock);
    const paper = sim ? createPaperControls(config, store, sim, clock) : undefined;

    // The address is known only once the port is open (port 0), so whatever needs it reads it late;
    // the server listens last, with the app in place, so no early request goes unanswered.
    const where = { url: "", publicUrl: "" };
    // The daemon's own origins join the configured ones once the port is known.
    let allowed = new Set<string>(config.corsOrigins);
    const auth = createAuthService({
      db: store.db, work: store, clock,
      origin: () => ({ publicUrl: where.publicUrl, chainId: chain.chainId }),
      allowedOrigins: () => allowed,
      settings: { sessionMaxAgeMs: config.sessionMaxAgeDays * 86_400_000, ...opts.authSettings },
    });
    const box = secretBox(loadSecretKey({ secret: process.env.TRADEVAULT_SECRET, keyFile: join(config.dataDir, "keys", "secret.key") }));
    const block = await chain.provider.getBlock("latest");
    const services = composeServices({
      config, store, exchange, chainOps: chainOps(chain, block?.gasLimit ?? 30_000_000n),
      onChainEvents: (listener) => void chain.indexer.onEvents(listener), auth, box, clock, log,
    });

    // Prices between polls: the vault watch revalues at each update (off with --no-price-stream).
    const prices = config.priceStream
      ? createPriceStream({ apiUrl: exchange.url, onMids: (mids) => services.watch.onMids(mids), log, clock })
      : undefined;
    undo.push(async () => prices?.stop());
    metrics?.watch({ db: store.db, clock, oracle: services.oracle, chainKey: chain.key, operatorBalance: () => chain.operatorBalance(), limiter: meter, enforcement: services.enforcement });

    const routes: RouteSpec[] = [];
    let openApi: unknown;
    routes.push(
      ...metaRoutes({
        health: healthCheck({
          config, version, clock, store, exchange, chain, oracle: services.oracle, prices, simControls: paper?.mode, watch: services.watch,
          deadMan: services.deadMan, enforcement: services.enforcement, weight: meter,
        }),
        openApi: () => (openApi ??= buildOpenApi(routes, { version, serverUrl: where.publicUrl })),
      }),
      ...services.routes,
      ...(paper ? simRoutes(paper) : []),
    );
    const { app, router } = buildApp({
      log, auth, routes,
      limiters: {
        signIn: tokenBucket({ capacity: config.signInRateLimit, perMs: 60_000, clock }),
        orders: tokenBucket({ capacity: config.orderRateLimit, perMs: 1_000, clock }),
      },
      allowedOrigins: () => allowed, corsOrigins: config.corsOrigins, trustProxy: config.trustProxy, metrics: metrics?.http,
    });
    const server = config.tlsCert && config.tlsKey
      ? createHttpsServer({ cert: readFileSync(config.tlsCert), key: readFileSync(config.tlsKey) })
      : createHttpServer();
    server.on("request", app.callback());
    // Clients reuse a kept-alive connection after slow local steps (the CLI unlocks a keystore between
    // two requests): closing idle sockets after Node's 5 s raced them into ECONNRESET. Keep them for a
    // minute, as proxies do; the client is told (Keep-Alive: timeout=65) and closes first.
    server.keepAliveTimeout = 65_000;
    server.headersTimeout = 66_000;
    const addr = await listen(server, config.host, config.port);
    undo.push(() => new Promise((r) => server.close(() => r())));
    const hostForUrl = addr.family === "IPv6" ? `[${addr.address}]` : addr.address;
    const url = (where.url = `${config.tlsCert ? "https" : "http"}://${hostForUrl}:${addr.port}`);
    const publicUrl = (where.publicUrl = config.publicUrl ? new URL(config.publicUrl).origin : url);
    allowed = new Set([new URL(publicUrl).origin, new URL(url).origin, ...config.corsOrigins]);
    const metricsServer = metrics ? await startMetricsServer(metrics, config.host, config.metricsPort!) : undefined;
    undo.push(async () => metricsServer?.stop());
    services.reconciler.start(5_000);
    // A pause the daemon did not get to act on before it stopped (a crash, a kill) is acted on now.
    await services.enforcement.start();
    if (opts.startOracle !== false) services.oracle.start(1_000);
    prices?.start();
    log.info({ url, publicUrl, dataDir: config.dataDir, network: config.network, chain: chain.rpcUrl, exchange: exchange.url, metrics: metricsServer?.url }, `tradevaultd listening on ${url}`);

    let stopping: Promise<void> | undefined;
    const stop = () =>
      (stopping ??= (async () => {
        log.info("shutting down: no new connections, ending streams, finishing requests in flight");
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        services.hub.endAll();
        server.closeIdleConnections();
        const timer = setTimeout(() => server.closeAllConnections(), 10_000);
        await closed;
        clearTimeout(timer);
        await metricsServer?.stop();
        await prices?.stop();
        await services.oracle.stop();
        await services.enforcement.stop();
        await services.reconciler.stop();
        await sim?.stop();
        await chain.stop(); // settles the pending transaction first
        await store.close();
        log.info("stopped");
      })());

    return {
      url, publicUrl, store, sim, exchange, chain, oracle: services.oracle, enforcement: services.enforcement, routes, router, metricsUrl: metricsServer?.url,
      reconcile: (cloid) => services.reconciler.settle(cloid), stop,
    };
  } catch (err) {
    await cleanup();
    throw err;
  }
}

/** The embedded sim's controls over the API; the operator token is written on first need and kept. */
function createPaperControls(config: Config, store: Store, sim: SimExchange, clock: () => number): PaperControls {
  const mode = config.simControls;
  const operatorToken = mode === "operator" ? loadOrCreateOperatorToken(operatorTokenPath(config.dataDir)) : undefined;
  return paperControls({ sim, work: store, clock, mode, operatorToken });
}

function simFeed(spec: string): PriceFeedConfig {
  if (spec === "random") return { kind: "random-walk", seed: 1, intervalMs: 1_000 };
  if (spec === "static") return { kind: "static" };
  return { kind: "csv", path: spec, intervalMs: 1_000 };
}

/** The embedded sim; on the embedded chain its faucet also mints the test settlement token. */
export function createSim(config: Config, clock: () => number, chain?: Chain): SimExchange {
  return createSimExchange({
    host: "127.0.0.1",
    port: config.simPort,
    dbPath: join(config.dataDir, "sim-exchange.db"),
    network: "Testnet",
    priceFeed: simFeed(config.simFeed),
    fundingRate: config.simFunding,
    scheduleCancelMinVolumeUsd: config.simScheduleCancelVolume,
    ws: { maxConnectionsPerIp: config.simWsConnectionsPerIp, maxUsersPerIp: config.simWsUsersPerIp },
    clock,
    onFaucet: chain?.kind === "embedded"
      ? async (user, amount) => {
          await mintSettlementToken(chain.signer, { token: chain.addresses.token, to: user, amount });
        }
      : undefined,
  });
}
