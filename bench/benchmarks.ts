// Every benchmark, by name, with its full size (what `npm run bench` runs) and a tiny one (what the
// smoke test runs to check it starts and finishes).
import { ALERTS_FULL, alerts } from "./alerts.js";
import { AUDIT_WRITE_FULL, auditWrite } from "./audit-write.js";
import { BREACH_FULL, breach } from "./breach.js";
import { CLUSTER_FAULTS_FULL, clusterFaults } from "./cluster-faults.js";
import { HTTP_READ_FULL, httpRead } from "./http-read.js";
import { HTTP_READ_SHARED_FULL, httpReadShared } from "./http-read-shared.js";
import type { BenchResult } from "./lib/report.js";
import { LIVES_FULL, lives } from "./lives.js";
import { LOGIN_FULL, login } from "./login.js";
import { LOGIN_SHARED_FULL, loginShared } from "./login-shared.js";
import { ORACLE_SCALE_FULL, oracleScale } from "./oracle-scale.js";
import { ORACLE_SCALE_SHARED_FULL, oracleScaleShared } from "./oracle-scale-shared.js";
import { ORDER_PATH_FULL, orderPath } from "./order-path.js";
import { SCALE_OUT_FULL, scaleOut } from "./scale-out.js";
import { SOAK_FULL, soak } from "./soak.js";
import { TRADE_HISTORY_FULL, tradeHistory } from "./trade-history.js";

export interface Benchmark {
  name: string;
  full(): Promise<BenchResult>;
  tiny(): Promise<BenchResult>;
}

export const BENCHMARKS: Benchmark[] = [
  {
    name: "http-read",
    full: () => httpRead(HTTP_READ_FULL),
    tiny: () => httpRead({ vaults: 2, connections: 2, durationS: 0.3, runs: 1, warmupS: 0.1 }),
  },
  {
    name: "http-read-shared",
    full: () => httpReadShared(HTTP_READ_SHARED_FULL),
    tiny: () => httpReadShared({ vaults: 2, connections: 2, durationS: 0.3, runs: 1, warmupS: 0.1 }),
  },
  {
    name: "order-path",
    full: () => orderPath(ORDER_PATH_FULL),
    tiny: () => orderPath({ orders: 3, runs: 1, warmup: 1, commitProbe: 2 }),
  },
  {
    name: "login",
    full: () => login(LOGIN_FULL),
    tiny: () => login({ concurrency: 2, durationS: 0.3, runs: 1, warmupS: 0.1, commitProbe: 2, readProbeS: 0.3 }),
  },
  {
    name: "login-shared",
    full: () => loginShared(LOGIN_SHARED_FULL),
    tiny: () => loginShared({ concurrency: 2, durationS: 0.3, runs: 1, warmupS: 0.1, commitProbe: 2, readProbeS: 0 }),
  },
  {
    name: "oracle-scale",
    full: () => oracleScale(ORACLE_SCALE_FULL),
    tiny: () => oracleScale({ vaults: [2, 3], runs: 1 }),
  },
  {
    name: "oracle-scale-shared",
    full: () => oracleScaleShared(ORACLE_SCALE_SHARED_FULL),
    tiny: () => oracleScaleShared({ vaults: [2], cycles: 1 }),
  },
  {
    name: "trade-history",
    full: () => tradeHistory(TRADE_HISTORY_FULL),
    tiny: () => tradeHistory({ small: 200, large: 1_000, requests: 5, runs: 1, warmup: 1 }),
  },
  {
    name: "audit-write",
    full: () => auditWrite(AUDIT_WRITE_FULL),
    tiny: () => auditWrite({ batches: [{ batch: 1, count: 5 }, { batch: 100, count: 200 }], postgres: 0, runs: 1 }),
  },
  {
    name: "alerts",
    full: () => alerts(ALERTS_FULL),
    tiny: () => alerts({ vaults: 2, hooksPerVault: 2, hanging: 1, rounds: 1, cycles: 1 }),
  },
  {
    name: "breach",
    full: () => breach(BREACH_FULL),
    tiny: () => breach({
      runs: 1, stepMs: 50, oracleIntervalS: 1, weightVaults: 2, weightMinutes: 0.02,
      enforcement: { intervalsS: [1], perPolicy: 1, outageMs: 500, holdMinutes: 0.01 },
    }),
  },
  {
    name: "scale-out",
    full: () => scaleOut(SCALE_OUT_FULL),
    tiny: () => scaleOut({
      vaults: 4, intervalS: 1, daemons: 2, coverage: { order: [1, 2], windowS: 5 }, kills: { full: 1, spent: 0 },
      reads: { connections: 2, durationS: 0.3, runs: 1, warmupS: 0.1 }, writes: { connections: 1, durationS: 0.3, runs: 1 }, orders: { orders: 3, runs: 1, warmup: 1 },
    }),
  },
  {
    name: "cluster-faults",
    full: () => clusterFaults(CLUSTER_FAULTS_FULL),
    tiny: () => clusterFaults({ rounds: 1, vaults: 3, extraVaults: 0, intervalS: 1, stallIntervals: [5, 5], dbOutageS: [1, 1], kinds: ["stall"] }),
  },
  {
    name: "lives",
    full: () => lives(LIVES_FULL),
    tiny: () => lives({ lives: 1, readings: 50, fills: 10 }),
  },
  {
    name: "soak",
    full: () => soak(SOAK_FULL),
    tiny: () => soak({ vaults: 2, cycles: 3, every: 1 }),
  },
];
