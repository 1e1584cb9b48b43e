// The exchange the daemon trades on: the embedded sim (--exchange sim), a sim elsewhere
// (--exchange-url) or Hyperliquid; the adapter to it with the meter of its request weight; and, on
// the embedded sim, its controls over the API.
import { join } from "node:path";
import type { Chain } from "./chain/chain.js";
import { mintSettlementToken } from "./chain/deploy.js";
import type { Config } from "./config.js";
import type { Store } from "./db/store.js";
import { createHyperliquidAdapter, MAINNET_URL, TESTNET_URL } from "./exchange/hyperliquid-adapter.js";
import type { ExchangeAdapter } from "./exchange/types.js";
import { HYPERLIQUID_WEIGHT, weightLimiter } from "./exchange/weight-limiter.js";
import { meteredLimiter, type MeteredLimiter } from "./metrics/metered-limiter.js";
import { loadOrCreateOperatorToken, operatorTokenPath } from "./paper/operator-token.js";
import { paperControls, type PaperControls } from "./paper/paper-controls.js";
import { createSimExchange, type PriceFeedConfig, type SimExchange } from "./sim/index.js";

export interface Venue {
  /** The embedded sim, started; undefined unless `--exchange sim` without --exchange-url. */
  sim?: SimExchange;
  exchange: ExchangeAdapter;
  /** Every read and action's weight (the oracle's, the early writes', the traders'), for /healthz and /metrics. */
  meter: MeteredLimiter;
  /** The sim's controls over the API (embedded sim only). */
  paper?: PaperControls;
}

/** Starts the embedded sim if the config asks for it; `onStarted` learns how to stop it. */
export async function openVenue(config: Config, store: Store, chain: Chain, clock: () => number, onStarted: (stop: () => Promise<void>) => void): Promise<Venue> {
  const sim = config.exchange === "sim" && !config.exchangeUrl ? createSim(config, clock, chain) : undefined;
  if (sim) {
    await sim.start();
    onStarted(() => sim.stop());
  }
  const { exchange, meter } = createExchange(config, sim, clock);
  return { sim, exchange, meter, paper: sim ? createPaperControls(config, store, sim, clock) : undefined };
}

function createExchange(config: Config, sim: SimExchange | undefined, clock: () => number): { exchange: ExchangeAdapter; meter: MeteredLimiter } {
  const timeoutMs = config.exchangeTimeout * 1000;
  // The sim has no request budget; Hyperliquid's (1200 weight a minute per IP) applies to the real venue only.
  const paper = sim !== undefined || config.exchangeUrl !== undefined;
  const meter = meteredLimiter(paper ? weightLimiter({ perMinute: 1e9 }) : weightLimiter({ ...HYPERLIQUID_WEIGHT, clock }), clock);
  const adapter = (kind: ExchangeAdapter["kind"], url: string, isTestnet: boolean) =>
    ({ exchange: createHyperliquidAdapter({ kind, url, isTestnet, clock, timeoutMs, limiter: meter }), meter });
  if (sim) return adapter("sim", sim.url, true);
  // A sim elsewhere (`tradevaultd --sim-only`): paper trading, signed as testnet, no request budget either.
  if (config.exchangeUrl) return adapter("sim", config.exchangeUrl, true);
  if (config.exchange === "hyperliquid-testnet") return adapter("hyperliquid-testnet", TESTNET_URL, true);
  return adapter("hyperliquid", MAINNET_URL, false);
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
