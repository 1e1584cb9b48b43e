// Composition root: the only place that knows every part, and the one place that starts and stops
// them, in order. startDaemon reads as its steps: config, store, chain, exchange, the listening
// address, services, HTTP, then the background work (oracle, reconciler, enforcement, price stream).
import type Router from "@koa/router";
import { join } from "node:path";
import type { Logger } from "pino";
import { createAuthService, type AuthSettings } from "./auth/auth-service.js";
import { createSignerPool, type SignerPool } from "./auth/signer-pool.js";
import { startChain, type Chain } from "./chain/chain.js";
import { loadOrCreateOperatorKey, readOperatorKeyFile } from "./chain/operator-key.js";
import { composeServices } from "./compose-services.js";
import { ConfigError, postgresLimitsOf, type Config } from "./config.js";
import { openStore, type OpenedStore, type Store } from "./db/database.js";
import type { OrderRow } from "./db/schema.js";
import { newestAgent } from "./db/agents-repo.js";
import { knownVaults } from "./db/vaults-repo.js";
import { createPriceStream, type PriceStream } from "./exchange/price-stream.js";
import type { ExchangeAdapter } from "./exchange/types.js";
import { healthCheck } from "./health.js";
import { buildApp } from "./http/app.js";
import { tokenBucket } from "./http/middleware/rate-limit.js";
import { buildOpenApi } from "./http/openapi.js";
import type { RouteSpec } from "./http/route.js";
import { metaRoutes } from "./http/routes/meta-routes.js";
import { simRoutes } from "./http/routes/sim-routes.js";
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
import { applyChainEvents } from "./vaults/vault-events.js";
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

export interface Daemon {
  /** Where the API listens, e.g. http://127.0.0.1:8420 */
  url: string;
  publicUrl: string;
  store: OpenedStore;
  /** The embedded sim exchange, when `--exchange sim`. */
  sim?: SimExchange;
  exchange: ExchangeAdapter;
  chain: Chain;
  oracle: Oracle;
  /** Each paused vault's breach policy, enforced (tests trigger runs as a pause would). */
  enforcement: Enforcement;
  /** Ends the event streams whose sessions ended elsewhere (tests run a check as its timer would). */
  streamSessions: { check(): Promise<void> };
  /** The operator's alert monitor, with --alert-url (tests run a check as its timer would). */
  alerts?: { tick(): Promise<void> };
  routes: RouteSpec[];
  router: Router;
  /** GET /metrics, when --metrics-port is set. */
  metricsUrl?: string;
  /** Settles one in-doubt order now (the background sweep does this every few seconds). */
  reconcile(cloid: string): Promise<OrderRow | undefined>;
  /** Compares the resting orders with the exchange now, as the order sync does every oracle interval; how many it settled. */
  syncOrders(): Promise<number>;
  /** One pass of the stop keeper now (tests: what the next interval would do). */
  keepStops(): Promise<void>;
  /** Reads one vault's balance and writes it on-chain now (as an early write between polls does). */
  refreshVault(address: string): Promise<unknown>;
  stop(): Promise<void>;
}

/** What has started so far, stopped in reverse if a later step fails. */
type Undo = Array<() => Promise<void>>;

/** What every step may use: the validated config and the daemon's log, clock and metrics. */
interface Base {
  config: Config;
  log: Logger;
  clock: () => number;
  version: string;
  /** Present when --metrics-port is set. */
  metrics?: Metrics;
}

export async function startDaemon(opts: DaemonOptions): Promise<Daemon> {
  const base = baseOf(opts);
  const undo: Undo = [];
  try {
    await assertPortFree(base.config.host, base.config.port);
    const { store, box, operatorKey } = await openStoreAndKeys(base.config, undo);
    const { chain, ops } = await startChainFor(base, store, operatorKey, undo);
    const members = membership(store, base.config, chain, base.log);
    const venue = await openVenue(base.config, store, chain, base.clock, (stop) => undo.push(stop));
    const listening = await listenForApi(base.config);
    undo.push(() => closeServer(listening.server));
    // From here until the app answers on the server nothing awaits: the port is open, but no
    // connection is read before the event loop turns, so no early request goes unanswered.
    const signers = createSignerPool();
    undo.push(() => signers.close());
    const services = buildServices(base, { store, box, chain, ops, venue, members, address: listening.address, signers, authSettings: opts.authSettings });
    const http = serveApi(base, { store, chain, venue, services, members, listening });
    const background = await startBackground(base, services, { store, chain, exchange: venue.exchange, members }, opts.startOracle !== false, undo);
    const { url, publicUrl } = listening.address;
    base.log.info({ url, publicUrl, dataDir: base.config.dataDir, network: base.config.network, chain: chain.rpcUrl, exchange: venue.exchange.url, metrics: background.metricsUrl }, `tradevaultd listening on ${url}`);
    return {
      url, publicUrl, store, sim: venue.sim, exchange: venue.exchange, chain,
      oracle: services.oracle, enforcement: services.enforcement, streamSessions: services.streamSessions, alerts: background.alerts, routes: http.routes, router: http.router, metricsUrl: background.metricsUrl,
      reconcile: (cloid) => services.reconciler.settle(cloid),
      syncOrders: () => services.orderSync.pass(),
      keepStops: () => services.stops.pass(),
      refreshVault: (address) => services.vaults.refresh(address),
      stop: once(() => shutdown(base.log, [
        () => drainServer(base.log, listening, services),
        () => signers.close(),
        background.stopMetricsServer,
        async () => services.prices?.stop(),
        () => services.oracle.stop(),
        background.stopAlerts,
        () => services.enforcement.stop(),
        () => services.deliveries.stop(),
        // The vaults' leases handed back: the other daemons take them at their next round.
        async () => members.cluster?.stop(),
        async () => services.eventTail?.stop(),
        () => services.streamSessions.stop(),
        () => services.reconciler.stop(),
        () => services.orderSync.stop(),
        () => services.stops.stop(),
        async () => venue.sim?.stop(),
        () => chain.stop(), // settles the pending transaction first
        () => store.close(),
      ])),
    };
  } catch (err) {
    for (const f of undo.reverse()) await f().catch(() => undefined);
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
async function openStoreAndKeys(config: Config, undo: Undo): Promise<{ store: OpenedStore; box: SecretBox; operatorKey: string }> {
  const store = await openStore(config.databaseUrl ?? join(config.dataDir, `tradevault-${config.network}.db`), { limits: postgresLimitsOf(config) });
  undo.push(() => store.close());
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

/** The embedded chain (or the one at --rpc-url), its indexer feeding the store; `ops` are the vault contracts' actions. */
async function startChainFor(base: Base, store: Store, operatorKey: string, undo: Undo): Promise<{ chain: Chain; ops: VaultChainOps }> {
  const { config, log, clock, metrics } = base;
  const chain = await startChain({
    dataDir: config.dataDir, store, log, clock, operatorKey, shared: sharedSending(store, config),
    sink: { knownVaults: (addresses) => knownVaults(store.db, addresses), apply: applyChainEvents },
    embedded: { port: config.chainPort, snapshotIntervalS: config.chainSnapshotInterval, compactEveryBlocks: config.chainCompactBlocks },
    onConfirmed: metrics?.onConfirmed,
    external: config.rpcUrl
      ? { rpcUrl: config.rpcUrl, chainId: config.chainId!, factory: config.factoryAddress, token: config.settlementToken }
      : undefined,
  });
  undo.push(() => chain.stop());
  const block = await chain.provider.getBlock("latest");
  return { chain, ops: chainOps(chain, block?.gasLimit ?? 30_000_000n) };
}

type Services = ReturnType<typeof composeServices> & {
  auth: ReturnType<typeof createAuthService>;
  /** Prices between polls: the vault watch revalues at each update (off with --no-price-stream). */
  prices?: PriceStream;
};

/** Sign-in, the services of compose-services.ts and the price stream; built, not yet started. */
function buildServices(
  base: Base,
  parts: {
    store: Store; box: SecretBox; chain: Chain; ops: VaultChainOps; venue: Venue; members: Membership; address: ListenAddress;
    signers: SignerPool; authSettings?: Partial<AuthSettings>;
  },
): Services {
  const { config, log, clock, metrics } = base;
  const { store, chain, venue, address } = parts;
  const auth = createAuthService({
    db: store.db, work: store, changeKey: store.changeKey, changeKeyNow: store.changeKeyNow, clock,
    origin: () => ({ publicUrl: address.publicUrl, chainId: chain.chainId }),
    allowedOrigins: () => address.allowedOrigins,
    settings: { sessionMaxAgeMs: config.sessionMaxAgeDays * 86_400_000, ...parts.authSettings },
    signers: parts.signers,
  });
  const services = composeServices({
    config, store, exchange: venue.exchange, chainOps: parts.ops,
    onChainEvents: (listener) => void chain.indexer.onEvents(listener), auth, box: parts.box, share: parts.members.share, clock, log,
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
  return { ...services, auth, prices };
}

/** The routes (meta, services', the sim's controls) and the Koa app, answering on the listening server. */
function serveApi(
  base: Base,
  parts: { store: Store; chain: Chain; venue: Venue; services: Services; members: Membership; listening: Listening },
): { routes: RouteSpec[]; router: Router } {
  const { config, log, clock, version, metrics } = base;
  const { venue, services, listening: { server, address } } = parts;
  const routes: RouteSpec[] = [];
  let openApi: unknown; // built on first request, once every route is in the list
  routes.push(
    ...metaRoutes({
      health: healthCheck({
        config, version, clock, store: parts.store, exchange: venue.exchange, chain: parts.chain, oracle: services.oracle,
        prices: services.prices, simControls: venue.paper?.mode, watch: services.watch, deadMan: services.deadMan,
        enforcement: services.enforcement, weight: venue.meter, cluster: parts.members.cluster,
      }),
      openApi: () => (openApi ??= buildOpenApi(routes, { version, serverUrl: address.publicUrl })),
    }),
    ...services.routes,
    ...(venue.paper ? simRoutes(venue.paper) : []),
  );
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
 * The metrics endpoint, the reconciler's sweep, the order sync, enforcement (a pause the daemon did
 * not get to act on before it stopped, a crash or a kill, is acted on now), the oracle loop and the
 * price stream.
 */
async function startBackground(
  base: Base, services: Services, parts: { store: Store; chain: Chain; exchange: ExchangeAdapter; members: Membership }, startOracle: boolean, undo: Undo,
) {
  const { config, metrics } = base;
  const metricsServer = metrics ? await startMetricsServer(metrics, config.host, config.metricsPort!) : undefined;
  const stopMetricsServer = async () => metricsServer?.stop();
  undo.push(stopMetricsServer);
  await services.eventTail?.start();
  undo.push(async () => services.eventTail?.stop());
  services.streamSessions.start();
  undo.push(() => services.streamSessions.stop());
  services.reconciler.start(5_000);
  undo.push(() => services.reconciler.stop());
  // At the oracle's pace, which the background budget is sized for: a pass spends at most 20 of
  // weight per account with resting rows, plus 2 per order found closed.
  services.orderSync.start(config.oracleInterval * 1000);
  undo.push(() => services.orderSync.stop());
  // At the same pace: per account with stops, its open orders and positions (22 of weight), and a
  // status (2) per stop no longer open; a crossing of a trigger seen on the price stream looks sooner.
  services.stops.start(config.oracleInterval * 1000);
  undo.push(() => services.stops.stop());
  undo.push(() => services.enforcement.stop());
  // Leases before enforcement and the oracle: they act on this daemon's share only.
  await joinCluster(parts.members, parts.chain, base.log, (gained) => {
    void services.vaults.takeOver(gained)
      .catch((err) => base.log.warn({ vaults: gained.length, err: (err as Error).message }, "reading vaults just taken over failed; the oracle's next cycle tries again"));
  });
  undo.push(async () => parts.members.cluster?.stop());
  await services.enforcement.start();
  await services.deliveries.start();
  // A daemon found gone leaves its claimed deliveries to the others at once, not when the claims expire.
  parts.members.cluster?.onReaped((gone) => void services.deliveries.releaseClaimsOf(gone).catch((err) => base.log.warn({ err }, "releasing a departed daemon's webhook claims failed; they expire by themselves")));
  undo.push(() => services.deliveries.stop());
  if (startOracle) services.oracle.start(1_000);
  undo.push(() => services.oracle.stop());
  services.prices?.start();
  undo.push(async () => services.prices?.stop());
  const cluster = parts.members.cluster;
  const alerts = startOperatorAlerts({
    config, store: parts.store, chain: parts.chain, exchange: parts.exchange, oracle: services.oracle, daemon: () => daemonId(config.dataDir),
    isSender: () => cluster?.isSender() ?? true, clock: base.clock, log: base.log,
  });
  undo.push(alerts.stop);
  return { metricsUrl: metricsServer?.url, stopMetricsServer, alerts: alerts.monitor, stopAlerts: alerts.stop };
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

/** Stops the parts in the order given, each after the one before has stopped. */
async function shutdown(log: Logger, steps: Array<() => Promise<void>>): Promise<void> {
  for (const step of steps) await step();
  log.info("stopped");
}

/** The first call's promise, for every call. */
function once(f: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | undefined;
  return () => (running ??= f());
}
