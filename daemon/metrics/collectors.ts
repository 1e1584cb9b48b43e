// Gauges read at scrape time from what the daemon already keeps: the orders, vaults and chain journal
// tables (small GROUP BYs over indexes, asked through their repositories), the oracle's status, the exchange budget meter and the
// operator's balance. Nothing here is threaded through the services; a scrape costs a few queries.
import { formatEther } from "ethers";
import type { Logger } from "pino";
import { Counter, Gauge, type Registry } from "prom-client";
import { countJournalByStatus } from "../db/chain-repo.js";
import type { Executor } from "../db/store.js";
import { countOrdersByStatus } from "../db/orders-repo.js";
import { countVaultsByState, oldestOpenVaultReading } from "../db/vaults-repo.js";
import { countDeliveriesByStatus } from "../db/webhooks-repo.js";
import type { OrderStatus } from "../db/schema.js";
import type { TxStatus } from "../db/schema-chain.js";
import type { Cluster } from "../cluster/cluster.js";
import type { OracleStatus } from "../oracle/oracle.js";
import type { MeteredLimiter } from "./metered-limiter.js";

export interface ScrapeSources {
  db: Executor;
  clock: () => number;
  oracle: { status(): OracleStatus & { ageSeconds: number } };
  /** The journal partition of the chain in use (Chain.key). */
  chainKey: string;
  operatorBalance(): Promise<bigint>;
  /** Hears why the operator's balance was left out of a scrape (once per run of failures). */
  log: Logger;
  limiter?: MeteredLimiter;
  /** Paused vaults not holding their breach policy (vaults/enforcement.ts). */
  enforcement?: { summary(): { outOfPolicy: number; oldestSeconds: number } };
  /** Several daemons on one database (absent when alone on the store). */
  cluster?: Pick<Cluster, "status" | "holders">;
}

const ORDER_STATUSES: OrderStatus[] = ["pending", "resting", "filled", "canceled", "rejected", "unknown"];
const TX_STATUSES: TxStatus[] = ["pending", "sent", "confirmed", "reverted", "replaced", "failed"];
/** A chain that does not answer must not hang the scrape: the balance is then left out. */
const BALANCE_TIMEOUT_MS = 2_000;

/** Counts per value of `column`, with every known value present (0 when absent) so series never vanish. */
function fill<K extends string>(known: K[], rows: Array<{ key: string; n: number | bigint }>): Map<string, number> {
  const out = new Map<string, number>(known.map((k) => [k, 0]));
  for (const r of rows) out.set(r.key, Number(r.n));
  return out;
}

/** `p`'s value, or why there is none: it failed, or took longer than `ms`. */
function within<T>(p: Promise<T>, ms: number): Promise<{ value: T } | { failed: unknown }> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<{ failed: unknown }>((r) => (timer = setTimeout(() => r({ failed: `no answer within ${ms} ms` }), ms)));
  const settled = p.then((value) => ({ value }), (failed: unknown) => ({ failed }));
  return Promise.race([settled, late]).finally(() => clearTimeout(timer));
}

function tableGauges(reg: Registry, s: ScrapeSources): void {
  new Gauge({
    name: "tradevault_orders", help: "Orders in the audit trail, by current status", labelNames: ["status"], registers: [reg],
    async collect() {
      for (const [status, n] of fill(ORDER_STATUSES, await countOrdersByStatus(s.db))) this.set({ status }, n);
    },
  });
  new Gauge({
    name: "tradevault_vaults", help: "Vaults by state: active, paused (active but paused) or closed", labelNames: ["state"], registers: [reg],
    async collect() {
      const by = { active: 0, paused: 0, closed: 0 };
      for (const r of await countVaultsByState(s.db)) by[r.closed ? "closed" : r.paused ? "paused" : "active"] += Number(r.n);
      for (const [state, n] of Object.entries(by)) this.set({ state }, n);
    },
  });
  new Gauge({
    name: "tradevault_vault_balance_max_age_seconds", help: "Age of the oldest balance among open vaults (0 with none)", registers: [reg],
    async collect() {
      const oldest = await oldestOpenVaultReading(s.db);
      this.set(oldest === null ? 0 : Math.max(0, s.clock() / 1000 - oldest));
    },
  });
  new Gauge({
    name: "tradevault_webhook_deliveries", help: "Users' webhook deliveries kept (finished ones for 30 days), by status", labelNames: ["status"], registers: [reg],
    async collect() {
      for (const [status, n] of fill(["pending", "delivered", "failed"], await countDeliveriesByStatus(s.db))) this.set({ status }, n);
    },
  });
  new Gauge({
    name: "tradevault_chain_transactions", help: "Operator transactions in the journal, by status", labelNames: ["status"], registers: [reg],
    async collect() {
      for (const [status, n] of fill(TX_STATUSES, await countJournalByStatus(s.db, s.chainKey))) this.set({ status }, n);
    },
  });
}

function oracleGauges(reg: Registry, s: ScrapeSources): void {
  new Gauge({
    name: "tradevault_oracle_last_cycle_duration_seconds", help: "How long the last successful oracle cycle took", registers: [reg],
    collect() {
      const ms = s.oracle.status().durationMs;
      if (ms !== null) this.set(ms / 1000);
    },
  });
  new Gauge({
    name: "tradevault_oracle_lag_seconds", help: "Seconds since the last successful oracle cycle (since start before the first)", registers: [reg],
    collect() {
      this.set(s.oracle.status().ageSeconds);
    },
  });
  new Gauge({
    name: "tradevault_oracle_last_cycle_ok", help: "1 when the last oracle cycle succeeded, 0 when it failed", registers: [reg],
    collect() {
      const r = s.oracle.status().lastResult;
      if (r !== null) this.set(r === "ok" ? 1 : 0);
    },
  });
  new Gauge({
    name: "tradevault_oracle_active_vaults", help: "Active vaults the last oracle cycle found", registers: [reg],
    collect() {
      this.set(s.oracle.status().activeVaults);
    },
  });
}

function venueGauges(reg: Registry, s: ScrapeSources): void {
  const limiter = s.limiter;
  if (limiter) {
    new Counter({
      name: "tradevault_exchange_weight_spent_total", help: "Exchange request weight spent since start (Hyperliquid allows 1200 a minute per IP)", registers: [reg],
      collect() {
        // The meter keeps the count; the counter mirrors it at each scrape.
        this.reset();
        this.inc(limiter.spentTotal());
      },
    });
    new Gauge({
      name: "tradevault_exchange_weight_last_minute", help: "Exchange request weight spent in the last 60 seconds", registers: [reg],
      collect() {
        this.set(limiter.spentLastMinute());
      },
    });
  }
  let failing = false;
  new Gauge({
    name: "tradevault_operator_balance_ether", help: "The operator's gas balance on the chain, in ether (left out when the chain does not answer)", registers: [reg],
    async collect() {
      this.reset();
      const read = await within(s.operatorBalance(), BALANCE_TIMEOUT_MS);
      if ("value" in read) this.set(Number(formatEther(read.value)));
      else if (!failing) s.log.warn({ err: read.failed }, "metrics: the operator's balance is left out while the chain does not answer");
      failing = !("value" in read);
    },
  });
}

function enforcementGauges(reg: Registry, s: ScrapeSources): void {
  const e = s.enforcement;
  if (!e) return;
  new Gauge({
    name: "tradevault_enforcement_out_of_policy", help: "Paused vaults whose exchange account does not hold their breach policy yet", registers: [reg],
    collect() {
      this.set(e.summary().outOfPolicy);
    },
  });
  new Gauge({
    name: "tradevault_enforcement_oldest_seconds", help: "How long the longest such vault has been out of policy (0 with none)", registers: [reg],
    collect() {
      this.set(e.summary().oldestSeconds);
    },
  });
}

/** Several daemons on one database: this daemon's share, and each daemon's (labelled by id). */
function clusterGauges(reg: Registry, s: ScrapeSources): void {
  const c = s.cluster;
  if (!c) return;
  new Gauge({
    name: "tradevault_cluster_vaults_held", help: "Open vaults each daemon holds the oracle lease of (the database's view)", labelNames: ["daemon"], registers: [reg],
    async collect() {
      this.reset();
      for (const [daemon, n] of Object.entries(await c.holders())) this.set({ daemon }, n);
    },
  });
  new Gauge({
    name: "tradevault_cluster_live_daemons", help: "Daemons on this database whose heartbeat is within a lease's time", registers: [reg],
    collect() {
      this.set(c.status().liveDaemons);
    },
  });
  new Gauge({
    name: "tradevault_cluster_sender", help: "1 when this daemon sends the operator's transactions", registers: [reg],
    collect() {
      this.set(c.status().sender ? 1 : 0);
    },
  });
}

/** Registers every scrape-time gauge on `reg`. */
export function registerCollectors(reg: Registry, s: ScrapeSources): void {
  tableGauges(reg, s);
  oracleGauges(reg, s);
  enforcementGauges(reg, s);
  clusterGauges(reg, s);
  venueGauges(reg, s);
}
