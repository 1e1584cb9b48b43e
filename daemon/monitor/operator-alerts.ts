// The operator's alerts put together: the conditions of this daemon's parts, the monitor on its own
// timer (the oracle's interval, at most a minute), and the sender to --alert-url. Without
// --alert-url nothing runs. Composed by main.ts once the oracle has started.
import { parseEther } from "ethers";
import type { Logger } from "pino";
import type { Chain } from "../chain/chain.js";
import type { Config } from "../config.js";
import type { Store } from "../db/store.js";
import type { ExchangeAdapter } from "../exchange/types.js";
import type { Oracle } from "../oracle/oracle.js";
import { createAlertMonitor } from "./alert-monitor.js";
import { createAlertSender } from "./alert-sender.js";
import { operatorConditions } from "./operator-conditions.js";

export interface OperatorAlertParts {
  config: Config;
  store: Store;
  chain: Chain;
  exchange: ExchangeAdapter;
  oracle: Oracle;
  /** This daemon's id (made on first use in the data directory): asked only when alerts are on. */
  daemon: () => string;
  isSender(): boolean;
  clock: () => number;
  log: Logger;
  /** Tests shorten the retries. */
  retryDelaysMs?: number[];
}

export function startOperatorAlerts(p: OperatorAlertParts): { monitor?: ReturnType<typeof createAlertMonitor>; stop(): Promise<void> } {
  if (p.config.alertUrls.length === 0) return { stop: async () => undefined };
  const daemon = p.daemon();
  const sender = createAlertSender({ targets: p.config.alertUrls, log: p.log, retryDelaysMs: p.retryDelaysMs });
  const conditions = operatorConditions({
    db: p.store.db, daemon, oracle: p.oracle, oracleIntervalS: p.config.oracleInterval,
    probeExchange: () => p.exchange.mids(),
    probeChain: () => p.chain.provider.getBlockNumber(),
    snapshotError: p.chain.embedded ? () => p.chain.embedded!.maintenanceError() : undefined,
    operatorBalance: () => p.chain.operatorBalance(), operator: p.chain.operator,
    gasBelow: p.config.alertGasBelow === undefined ? undefined : parseEther(p.config.alertGasBelow),
    clock: p.clock,
  });
  const monitor = createAlertMonitor({
    db: p.store.db, work: p.store, daemon, isSender: p.isSender, conditions, send: sender.send, clock: p.clock, log: p.log,
    intervalMs: Math.min(p.config.oracleInterval, 60) * 1000,
  });
  monitor.start(1_000);
  return {
    monitor,
    async stop() {
      await monitor.stop();
      await sender.stop();
    },
  };
}
