// Composition root: the only place that knows every part, and the one place that starts and stops
// them, in order. startDaemon reads as its steps: config, store, chain, exchange, the listening
// address, services, HTTP, then the background work (oracle, reconciler, enforcement, price stream).
import type Router from "@koa/router";
import { join } from "node:path";
import type { Logger } from "pino";
import { createAuthService, type AuthSettings } from "./auth/auth-service.js";
import { createSignerPool, type SignerPool } from "./auth/signer-pool.js";
import { cursorName, indexerSettings, startChain, type Chain } from "./chain/chain.js";
import { loadOrCreateOperatorKey, readOperatorKeyFile } from "./chain/operator-key.js";
import { composeServices } from "./compose-services.js";
import { ConfigError, postgresLimitsOf, type Config } from "./config.js";
import { openStore, type OpenedStore, type Store } from "./db/database.js";
import { newestAgent } from "./db/agents-repo.js";
import { createPriceStream, type PriceStream } from "./exchange/price-stream.js";
import type { ExchangeAdapter } from "./exchange/types.js";
import { healthCheck } from "./health.js";
import { buildApp } from "./http/app.js";
import { tokenBucket } from "./http/middleware/rate-limit.js";
import { buildOpenApi } from "./http/openapi.js";
import type { RouteSpec } from "./http/route.js";
import { apiRoutes } from "./http/api-routes.js";
import { packageVersion } from "./lib/package-root.js";
import { loadSecretKey, secretBox, type SecretBox } from "./lib/secret-box.js";
import { assertPortFree, closeServer, listenForApi, type ListenAddress, type Listening } from "./listen.js";
import { createLogger } from "./log.js";
import { createMetrics, type Metrics } from "./metrics/metrics.js";
import { startMetricsServer } from "./metrics/metrics-server.js";
import type { Oracle } from "./oracle/oracle.js";
import type { SimExchange } from "./sim/index.js";
import { chainOps } from "./vaults/chain-ops.js";
import type { Enforcement } from "./vaults/enforcement.js";
import type { VaultChainOps } from "./vaults/vault-chain.js";
import { createIndexer, type Indexer } from "./vaults/chain-indexer.js";
import { openVenue, type Venue } from "./venue.js";
import { daemonId, joinCluster, membership, sharedSending, type Membership } from "./shared-store.js";
import { startOperatorAlerts } from "./monitor/operator-alerts.js";

export { createSim } from "./venue.js";
export { packageVersion };

export interface DaemonOptions {
  config: Config;
  log?: Logger;
  /** Milliseconds since the epoch; tests pass a controllable clock. */
  clock?: () => number;
  authSettings?: Partial<AuthSettings>;
  /** Tests drive oracle cycles themselves. */
  startOracle?: boolean;
}

/** A running daemon, as the command holds it. */
export interface Daemon {
  /** Where the API listens, e.g. http://127.0.0.1:8420 */
  url: string;
  publicUrl: string;
  /** GET /metrics, when --metrics-port is set. */
  metricsUrl?: string;
  stop(): Promise<void>;
}

/**
 * A running daemon with its parts in reach: what the tests and the benchmarks drive directly (an
 * oracle cycle, a reconcile, the sim's controls) instead of waiting for a timer.
 */
export interface DaemonWithParts extends Daemon {
  store: OpenedStore;
  /** The embedded sim exchange, when `--exchange sim`. */
  sim?: SimExchange;
  exchange: ExchangeAdapter;
  chain: Chain;
  /** The vaults' reading of the chain's events. */
  indexer: Indexer;
  services: Services;
  oracle: Oracle;
  enforcement: Enforcement;
  /** The operator's alert monitor, with --alert-url. */
  alerts?: { tick(): Promise<void> };
  routes: RouteSpec[];
  router: Router;
}

/**
 * What has started, each with how it stops. A stop (and a start that fails part-way) stops them in
 * reverse: what started last stops first.
 */
function startedParts(log: Logger) {
  const parts: Array<{ name: string; stop: () => Promise<void> }> = [];
  return {
    add(name: string, stop: () => Promise<void>): void {
      parts.push({ name, stop });
    },
    async stopAll(opts: { quiet?: boolean } = {}): Promise<void> {
      for (const part of parts.splice(0).reverse()) {
        await part.stop().catch((err) => {
          if (!opts.quiet) log.error({ part: part.name, err }, "stopping a part failed; stopping the rest");
        });
      }
    },
  };
}

type Parts = ReturnType<typeof startedParts>;

/** What every step may use: the validated config and the daemon's log, clock and metrics. */
interface Base {
  config: Config;
  log: Logger;
  clock: () => number;
  version: string;
  /** Present when --metrics-port is set. */
  metrics?: Metrics;
}

/** Starts the daemon: the command's entry. */
export async function startDaemon(opts: DaemonOptions): Promise<Daemon> {
  const { url, publicUrl, metricsUrl, stop } = await startDaemonWithParts(opts);
  return { url, publicUrl, metricsUrl, stop };
}

/**
 * The daemon's parts in start order: store and keys, chain, exchange, the API's port, sign-in's
 * signers, the services (built, not started), the routes answering on the port, then the background
 * work. A stop first closes the API to new requests (those in flight finish), then stops the parts
 * in reverse.
 */
export async function startDaemonWithParts(opts: DaemonOptions): Promise<DaemonWithParts> {
  const base = baseOf(opts);
  const parts = startedParts(base.log);
  try {
    await assertPortFree(base.config.host, base.config.port);
    const { store, box, operatorKey } = await openStoreAndKeys(base.config, parts);
    const { chain, indexer, ops } = await startChainFor(base, store, operatorKey, parts);
    const members = membership(store, base.config, chain, base.log);
    const venue = await openVenue(base.config, store, chain, base.clock, (stop) => parts.add("sim exchange", stop));
    const listening = await listenForApi(base.config);
    parts.add("API port", () => closeServer(listening.server));
    // From here until the app answers on the server nothing awaits: the port is open, but no
    // connection is read before the event loop turns, so no early request goes unanswered.
    const signers = createSignerPool();
    parts.add("signers", () => signers.close());
    const services = buildServices(base, { store, box, chain, indexer, ops, venue, members, address: listening.address, signers, authSettings: opts.authSettings });
    const http = serveApi(base, { store, chain, venue, services, members, listening });
    const background = await startBackground(base, services, { store, chain, indexer, exchange: venue.exchange, members }, opts.startOracle !== false, parts);
    const { url, publicUrl } = listening.address;
    base.log.info({ url, publicUrl, dataDir: base.config.dataDir, network: base.config.network, chain: chain.rpcUrl, exchange: venue.exchange.url, metrics: background.metricsUrl }, `tradevaultd listening on ${url}`);
    return {
      url, publicUrl, metricsUrl: background.metricsUrl,
      store, sim: venue.sim, exchange: venue.exchange, chain, indexer, services, oracle: services.oracle, enforcement: services.enforcement,
      alerts: background.alerts, routes: http.routes, router: http.router,
      stop: once(async () => {
        await drainServer(base.log, listening, services);
        await parts.stopAll();
        base.log.info("stopped");
      }),
    };
  } catch (err) {
    await parts.stopAll({ quiet: true });
    throw err;
  }
}

function baseOf(opts: DaemonOptions): Base {
  const { config } = opts;
  return {
    config,
    log: opts.log ?? createLogger(config.logLevel),
    clock: opts.clock ?? Date.now,
    version: packageVersion(),
    metrics: config.metricsPort === undefined ? undefined : createMetrics(),
  };
}

/** The database (the data directory's file of this network, or config.databaseUrl) and the keys of the data directory (or the environment). */
async function openStoreAndKeys(config: Config, parts: Parts): Promise<{ store: OpenedStore; box: SecretBox; operatorKey: string }> {
  const store = await openStore(config.databaseUrl ?? join(config.dataDir, `tradevault-${config.network}.db`), { limits: postgresLimitsOf(config) });
  parts.add("store", () => store.close());
  const box = secretBox(loadSecretKey({ secret: process.env.TRADEVAULT_SECRET, keyFile: join(config.dataDir, "keys", "secret.key") }));
  if (store.kind === "postgres") await assertOpensAgentKeys(store, box);
  const key = config.operatorKeyFile
    ? await readOperatorKeyFile(config.operatorKeyFile, process.env.TRADEVAULT_OPERATOR_PASSWORD)
    : await loadOrCreateOperatorKey(join(config.dataDir, "keys", "operator.key"));
  return { store, box, operatorKey: key.privateKey };
}

/**
 * Daemons sharing a database must seal with one secret: a daemon whose secret cannot open the stored
 * agent keys would fail every trade of every account, so it does not start.
 */
async function assertOpensAgentKeys(store: Store, box: SecretBox): Promise<void> {
  const agent = await newestAgent(store.db);
  if (!agent) return;
  try {
    box.open(agent.sealed_key);
  } catch {
    throw new ConfigError(
      "this daemon's secret cannot open the agent keys in the shared database: start it with the TRADEVAULT_SECRET the other daemons use",
    );
  }
}

/**
 * The embedded chain (or the one at --rpc-url); the vaults' indexer, caught up with it before
 * anything serves; and `ops`, the vault contracts' actions, each writing its receipt's events through.
 */
async function startChainFor(base: Base, store: Store, operatorKey: string, parts: Parts): Promise<{ chain: Chain; indexer: Indexer; ops: VaultChainOps }> {
  const { config, log, clock, metrics } = base;
  const chain = await startChain({
    dataDir: config.dataDir, store, log, clock, operatorKey, shared: sharedSending(store, config),
    embedded: { port: config.chainPort, snapshotIntervalS: config.chainSnapshotInterval, compactEveryBlocks: config.chainCompactBlocks },
    onConfirmed: metrics?.onConfirmed,
    external: config.rpcUrl
      ? { rpcUrl: config.rpcUrl, chainId: config.chainId!, factory: config.factoryAddress, token: config.settlementToken }
      : undefined,
  });
  parts.add("chain", () => chain.stop()); // settles the pending transaction first
  const indexer = createIndexer({
    store, provider: chain.provider, factory: chain.addresses.factory, startBlock: chain.deployBlock,
    name: cursorName(chain.key, chain.addresses.factory), settings: indexerSettings(chain.kind), log, clock,
  });
  await indexer.sync();
  // Sharing the database, one daemon reads the chain's logs for all: the one that sends (the
  // cluster's rounds start and stop the loop as the sender's lease moves, shared-store.ts).
  if (!chain.sending || chain.sending.sending()) indexer.start();
  parts.add("chain indexer", () => indexer.stop());
  const block = await chain.provider.getBlock("latest");
  return { chain, indexer, ops: chainOps(chain, block?.gasLimit ?? 30_000_000n, indexer, log) };
}

type Services = ReturnType<typeof composeServices> & {
  /** Prices between polls: the vault watch revalues at each update (off with --no-price-stream). */
  prices?: PriceStream;
};

/** Sign-in, the services of compose-services.ts and the price stream; built, not yet started. */
function buildServices(
  base: Base,
  parts: {
    store: Store; box: SecretBox; chain: Chain; indexer: Indexer; ops: VaultChainOps; venue: Venue; members: Membership; address: ListenAddress;
    signers: SignerPool; authSettings?: Partial<AuthSettings>;
  },
): Services {
  const { config, log, clock, metrics } = base;
  const { store, chain, venue, address } = parts;
  const auth = createAuthService({
    db: store.db, work: store, changeKey: store.changeKey, clock,
    origin: () => ({ publicUrl: address.publicUrl, chainId: chain.chainId }),
    allowedOrigins: () => address.allowedOrigins,
    settings: { sessionMaxAgeMs: config.sessionMaxAgeDays * 86_400_000, ...parts.authSettings },
    signers: parts.signers,
  });
  const services = composeServices({
    config, store, exchange: venue.exchange, chainOps: parts.ops,
    onChainEvents: (listener) => void parts.indexer.onEvents(listener), auth, box: parts.box, share: parts.members.share, clock, log,
    verifyVia: { rpcUrl: chain.rpcUrl, spend: (weight) => venue.meter.acquire(weight, { priority: "background" }) },
  });
  const prices = config.priceStream
    ? createPriceStream({ apiUrl: venue.exchange.url, onMids: (mids) => {
      services.watch.onMids(mids);
      services.stops.onMids(mids);
    }, log, clock })
    : undefined;
  metrics?.watch({
    db: store.db, clock, oracle: services.oracle, chainKey: chain.key, operatorBalance: () => chain.operatorBalance(), log,
    limiter: venue.meter, enforcement: services.enforcement, cluster: parts.members.cluster,
  });
  return { ...services, prices };
}

/** The API's routes (http/api-routes.ts) and the Koa app, answering on the listening server. */
function serveApi(
  base: Base,
  parts: { store: Store; chain: Chain; venue: Venue; services: Services; members: Membership; listening: Listening },
): { routes: RouteSpec[]; router: Router } {
  const { config, log, clock, version, metrics } = base;
  const { venue, services, listening: { server, address } } = parts;
  const health = healthCheck({
    config, version, clock, store: parts.store, exchange: venue.exchange, chain: parts.chain, oracle: services.oracle,
    prices: services.prices, simControls: venue.paper?.mode, watch: services.watch, deadMan: services.deadMan,
    enforcement: services.enforcement, weight: venue.meter, cluster: parts.members.cluster,
  });
  let openApi: unknown; // built on first request, from the finished list
  const routes: RouteSpec[] = apiRoutes(services, {
    health, paper: venue.paper, openApi: () => (openApi ??= buildOpenApi(routes, { version, serverUrl: address.publicUrl })),
  });
  const { app, router } = buildApp({
    log, auth: services.auth, routes,
    limiters: {
      signIn: tokenBucket({ capacity: config.signInRateLimit, perMs: 60_000, clock }),
      orders: tokenBucket({ capacity: config.orderRateLimit, perMs: 1_000, clock }),
    },
    allowedOrigins: () => address.allowedOrigins, corsOrigins: config.corsOrigins, trustProxy: config.trustProxy, metrics: metrics?.http,
  });
  server.on("request", app.callback());
  return { routes, router };
}

/**
 * The background work, each part added to the stop list once started: the metrics endpoint, the
 * event tail, the stream sessions' check, the reconciler's sweep, the order sync, the stop keeper,
 * the cluster's leases, enforcement (a pause the daemon did not get to act on before it stopped is
 * acted on now), webhook deliveries, the oracle loop, the price stream and the operator's alerts.
 */
async function startBackground(
  base: Base, services: Services, given: { store: Store; chain: Chain; indexer: Indexer; exchange: ExchangeAdapter; members: Membership }, startOracle: boolean, parts: Parts,
) {
  const { config, metrics } = base;
  const metricsServer = metrics ? await startMetricsServer(metrics, config.host, config.metricsPort!) : undefined;
  if (metricsServer) parts.add("metrics endpoint", () => metricsServer.stop());
  if (services.eventTail) {
    await services.eventTail.start();
    parts.add("event tail", async () => services.eventTail?.stop());
  }
  services.streamSessions.start();
  parts.add("stream sessions", () => services.streamSessions.stop());
  services.reconciler.start(5_000);
  parts.add("reconciler", () => services.reconciler.stop());
  // At the oracle's pace, which the background budget is sized for: a pass spends at most 20 of
  // weight per account with resting rows, plus 2 per order found closed.
  services.orderSync.start(config.oracleInterval * 1000);
  parts.add("order sync", () => services.orderSync.stop());
  // At the same pace: per account with stops, its open orders and positions (22 of weight), and a
  // status (2) per stop no longer open; a crossing of a trigger seen on the price stream looks sooner.
  services.stops.start(config.oracleInterval * 1000);
  parts.add("stop keeper", () => services.stops.stop());
  // Leases before enforcement and the oracle: they act on this daemon's share only. Handed back at
  // stop, the other daemons take them at their next round.
  const cluster = given.members.cluster;
  await joinCluster(given.members, given.chain, given.indexer, base.log, (gained) => {
    void services.vaults.takeOver(gained)
      .catch((err) => base.log.warn({ vaults: gained.length, err: (err as Error).message }, "reading vaults just taken over failed; the oracle's next cycle tries again"));
  });
  if (cluster) parts.add("cluster leases", async () => cluster.stop());
  await services.enforcement.start();
  parts.add("enforcement", () => services.enforcement.stop());
  await services.deliveries.start();
  parts.add("webhook deliveries", () => services.deliveries.stop());
  // A daemon found gone leaves its claimed deliveries to the others at once, not when the claims expire.
  cluster?.onReaped((gone) => void services.deliveries.releaseClaimsOf(gone).catch((err) => base.log.warn({ err }, "releasing a departed daemon's webhook claims failed; they expire by themselves")));
  if (startOracle) services.oracle.start(1_000);
  parts.add("oracle", () => services.oracle.stop());
  if (services.prices) {
    services.prices.start();
    parts.add("price stream", async () => services.prices?.stop());
  }
  const alerts = startOperatorAlerts({
    config, store: given.store, chain: given.chain, exchange: given.exchange, oracle: services.oracle, daemon: () => daemonId(config.dataDir),
    isSender: () => cluster?.isSender() ?? true, clock: base.clock, log: base.log,
  });
  parts.add("operator alerts", alerts.stop);
  return { metricsUrl: metricsServer?.url, alerts: alerts.monitor };
}

/** No new connections, streams ended, requests in flight finished (cut after 10 s). */
async function drainServer(log: Logger, { server }: Listening, services: Services): Promise<void> {
  log.info("shutting down: no new connections, ending streams, finishing requests in flight");
  const closed = closeServer(server);
  services.hub.endAll();
  server.closeIdleConnections();
  const timer = setTimeout(() => server.closeAllConnections(), 10_000);
  await closed;
  clearTimeout(timer);
}

/** The first call's promise, for every call. */
function once(f: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | undefined;
  return () => (running ??= f());
}
