// The daemon's Prometheus metrics (GET /metrics on --metrics-port). Two kinds: events observed as they
// happen (API requests through a Koa middleware, operator transactions through the chain's confirmation
// hook), and gauges read at scrape time from what the services already expose (collectors.ts). One
// registry per daemon, never prom-client's global one, so two daemons in one process never mix.
import { Counter, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import type { Middleware } from "koa";
import type { ConfirmedTx } from "../chain/tx-sender.js";
import { registerCollectors, type ScrapeSources } from "./collectors.js";
import { httpMetrics } from "./http-metrics.js";

/** Request latency buckets, seconds: loopback reads take a millisecond, an order on the venue a second. */
const HTTP_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Send-to-receipt buckets, seconds: automining answers at once, a public chain takes blocks. */
const CONFIRM_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];

export interface Metrics {
  registry: Registry;
  /** Outermost API middleware. */
  http: Middleware;
  /** The chain's confirmation hook: one observation per mined operator transaction. */
  onConfirmed(tx: ConfirmedTx): void;
  /** Adds the scrape-time gauges, once the parts they read exist (the exchange's meter among them). */
  watch(sources: ScrapeSources): void;
  /** The Prometheus text exposition. */
  scrape(): Promise<string>;
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  // Process memory, CPU, event-loop lag and GC, under their standard names (process_*, nodejs_*).
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: "tradevault_http_requests_total", help: "API requests by method, route pattern and status", labelNames: ["method", "route", "status"], registers: [registry],
  });
  const duration = new Histogram({
    name: "tradevault_http_request_duration_seconds", help: "API request latency by method, route pattern and status",
    labelNames: ["method", "route", "status"], buckets: HTTP_BUCKETS, registers: [registry],
  });
  const confirm = new Histogram({
    name: "tradevault_chain_confirmation_seconds", help: "Operator transactions: first broadcast to mined receipt, by outcome",
    labelNames: ["status"], buckets: CONFIRM_BUCKETS, registers: [registry],
  });
  return {
    registry,
    http: httpMetrics({ requests, duration }),
    onConfirmed(tx) {
      confirm.observe({ status: tx.reverted ? "reverted" : "confirmed" }, tx.elapsedMs / 1000);
    },
    watch(sources) {
      registerCollectors(registry, sources);
    },
    scrape: () => registry.metrics(),
  };
}
