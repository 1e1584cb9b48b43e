// GET /healthz: readiness of each part. It answers 503 when a part the service needs is down: the
// database does not answer, or the oracle has not completed a successful cycle for three intervals
// (a cycle in which no active vault could be read is not a success; with no vault, the exchange
// must answer). The keys stay stable: the CLI finds the sim and the chain through them.
import type { Chain } from "./chain/chain.js";
import type { Cluster } from "./cluster/cluster.js";
import type { Config, SimControlsMode } from "./config.js";
import { ping, type Store } from "./db/store.js";
import type { ExchangeAdapter } from "./exchange/types.js";
import type { PriceStream } from "./exchange/price-stream.js";
import type { Oracle } from "./oracle/oracle.js";
import type { DeadMan } from "./vaults/dead-man.js";
import type { VaultWatch } from "./vaults/vault-watch.js";

/** Missed intervals after which the oracle counts as down. */
export const ORACLE_DOWN_AFTER_INTERVALS = 3;

export interface Health {
  ready: boolean;
  /** Why not ready, when not. */
  problems: string[];
  data: Record<string, unknown>;
}

export function healthCheck(deps: {
  config: Config; version: string; clock: () => number; store: Store; exchange: ExchangeAdapter; chain: Chain; oracle: Oracle;
  /** Absent with --no-price-stream. */
  prices?: PriceStream;
  /** Who may move the embedded sim's prices through the API; absent without an embedded sim. */
  simControls?: SimControlsMode;
  watch: VaultWatch;
  /** Absent unless --dead-man-seconds is set. */
  deadMan?: DeadMan;
  /** Paused vaults not holding their breach policy yet. */
  enforcement: { summary(): { outOfPolicy: number; oldestSeconds: number } };
  /** The exchange request weight spent (all of it: oracle, early writes, trading). */
  weight?: { spentLastMinute(): number };
  /** Several daemons on one database: this one's share and everyone's. */
  cluster?: Pick<Cluster, "status" | "holders">;
}): () => Promise<Health> {
  const { config, clock, store, exchange, chain, oracle } = deps;
  const started = clock();
  return async () => {
    const problems: string[] = [];
    const database = await ping(store.db).then(() => "ok", (err: Error) => {
      problems.push(`database: ${err.message}`);
      return "error";
    });
    const o = oracle.status();
    const oracleOk = o.ageSeconds <= ORACLE_DOWN_AFTER_INTERVALS * config.oracleInterval;
    if (!oracleOk) {
      problems.push(`oracle: no successful cycle for ${o.ageSeconds} s${o.lastError ? ` (${o.lastError})` : ""}`);
    }
    const data = {
      status: problems.length === 0 ? "ok" : "unavailable",
      version: deps.version,
      uptimeSeconds: Math.floor((clock() - started) / 1000),
      database: { status: database, network: config.network },
      exchange: {
        kind: exchange.kind, url: exchange.url, isTestnet: exchange.isTestnet,
        // Hyperliquid allows 1200 a minute per IP; the early writes between polls are counted here too.
        weightLastMinute: deps.weight?.spentLastMinute() ?? null,
      },
      // Not a readiness condition: while the stream is down the oracle polls as before. Down for as
      // long as the oracle may miss cycles, it is a degraded part (e.g. a shared sim's per-IP limit).
      priceStream: {
        ...(deps.prices?.status() ?? { state: "off", lastMessageAgeSeconds: null, connects: 0, downSeconds: null }),
        breachMarginPoints: config.breachMargin,
        earlyWrites: deps.watch.status().earlyWrites,
        degraded: (deps.prices?.status().downSeconds ?? 0) > ORACLE_DOWN_AFTER_INTERVALS * config.oracleInterval,
      },
      // Paused vaults whose account does not hold their breach policy yet, and the longest such wait.
      // Not a readiness condition (the daemon keeps trying); the vault detail says which and why.
      enforcement: deps.enforcement.summary(),
      // Not a readiness condition: a daemon holding no vault (more daemons than vaults) is well.
      cluster: deps.cluster ? { ...deps.cluster.status(), holders: await deps.cluster.holders().catch(() => ({})) } : null,
      sim: deps.simControls === undefined ? null : { controls: deps.simControls },
      // Per vault account: armed, or why the exchange refused (its volume gate). Not a readiness condition.
      deadMan: deps.deadMan?.status() ?? { seconds: null, accounts: [] },
      chain: {
        kind: chain.kind, chainId: chain.chainId, rpcUrl: chain.rpcUrl, factory: chain.addresses.factory,
        settlementToken: chain.addresses.token, operator: chain.operator,
        operatorBalance: (await chain.operatorBalance().catch(() => undefined))?.toString() ?? null,
        height: await chain.provider.getBlockNumber().catch(() => null),
        // Embedded chain only (null elsewhere, and before the first snapshot): how much a restart replays.
        snapshotAgeSeconds: chain.embedded?.snapshotAgeSeconds() ?? null,
      },
      oracle: {
        status: oracleOk ? "ok" : "down",
        intervalSeconds: config.oracleInterval,
        ...o,
        lastSuccessAt: o.lastSuccessAt === null ? null : Math.floor(o.lastSuccessAt / 1000),
        lastCycleAt: o.lastCycleAt === null ? null : Math.floor(o.lastCycleAt / 1000),
      },
    };
    return { ready: problems.length === 0, problems, data };
  };
}
