// The answers of the routes about the daemon itself (meta-routes.ts): /healthz's body, with and
// without readiness, and the OpenAPI document's outline.
import { z } from "zod";
import { unixSeconds } from "../response-parts.js";

/** GET /healthz's data (the same when ready and when not). */
export const health = z.object({
  status: z.enum(["ok", "unavailable"]), version: z.string(), uptimeSeconds: z.number().int(),
  database: z.object({ status: z.enum(["ok", "error"]), network: z.string() }),
  exchange: z.object({
    kind: z.string(), url: z.string(), isTestnet: z.boolean(),
    weightLastMinute: z.number().nullable().meta({ description: "request weight spent in the last 60 s, all callers (the venue allows 1200)" }),
  }),
  priceStream: z.object({
    state: z.enum(["connecting", "open", "down", "off"]), lastMessageAgeSeconds: z.number().int().nullable(), connects: z.number().int(),
    breachMarginPoints: z.number(), earlyWrites: z.number().int(),
    downSeconds: z.number().int().nullable().meta({ description: "seconds since the stream last carried data (null while it does, and when off)" }),
    degraded: z.boolean().meta({ description: "down for more than three oracle intervals; the oracle still polls, so /healthz stays 200" }),
  }),
  sim: z.object({
    controls: z.enum(["open", "operator", "off"]).meta({ description: "who may POST /api/sim/price: any signed-in user, the operator token's holder, nobody (--sim-controls)" }),
  }).nullable().meta({ description: "the embedded sim's API controls (null: no embedded sim, no /api/sim routes)" }),
  chain: z.object({
    kind: z.enum(["embedded", "external"]), chainId: z.number().int(), rpcUrl: z.string(), factory: z.string(), settlementToken: z.string(),
    operator: z.string(), operatorBalance: z.string().nullable().meta({ description: "wei, decimal text" }),
    height: z.number().int().nullable().meta({ description: "the chain's block height (null when it did not answer)" }),
    snapshotAgeSeconds: z.number().int().nullable().meta({ description: "embedded chain: age of the newest snapshot (null before the first, and on an external chain)" }),
  }),
  cluster: z.object({
    daemon: z.string().meta({ description: "this daemon's id (<data-dir>/daemon-id)" }),
    vaultsHeld: z.number().int().meta({ description: "open vaults whose oracle work this daemon holds the lease of" }),
    activeVaults: z.number().int().meta({ description: "open vaults in the shared database" }),
    liveDaemons: z.number().int().meta({ description: "daemons whose heartbeat is within a lease's time" }),
    sender: z.boolean().meta({ description: "this daemon sends the operator's transactions" }),
    holders: z.record(z.string(), z.number().int()).meta({ description: "vaults held by each daemon, by id" }),
  }).nullable().meta({ description: "several daemons on one PostgreSQL database (null: this daemon is alone on its store)" }),
  enforcement: z.object({
    outOfPolicy: z.number().int().meta({ description: "paused vaults whose exchange account does not hold their breach policy yet" }),
    oldestSeconds: z.number().int().meta({ description: "how long the longest of them has been out of policy (0 with none)" }),
  }),
  deadMan: z.object({
    seconds: z.number().int().nullable().meta({ description: "--dead-man-seconds (null: off)" }),
    accounts: z.array(z.object({
      account: z.string(), vault: z.string(), armed: z.boolean(), cancelsAt: unixSeconds.nullable(),
      error: z.string().nullable().meta({ description: "the exchange's refusal, e.g. its volume gate" }), triedAt: unixSeconds,
    })),
  }),
  oracle: z.object({
    status: z.enum(["ok", "down"]), intervalSeconds: z.number(), lastCycleAt: unixSeconds.nullable(), lastResult: z.enum(["ok", "error"]).nullable(),
    lastError: z.string().nullable(), lastSuccessAt: unixSeconds.nullable(), activeVaults: z.number().int(), durationMs: z.number().nullable(),
    ageSeconds: z.number(),
  }),
});
export type Health = z.infer<typeof health>;
export const healthReady = z.object({ ok: z.literal(true), data: health });
/** 503: not ready; the data says which part is down. */
export const healthNotReady = z.object({
  ok: z.literal(false), data: health, error: z.object({ code: z.literal("SERVICE_UNAVAILABLE"), message: z.string() }),
});

/** GET /api/openapi.json: the document itself (its paths are described by OpenAPI 3.1, not here). */
export const openApiDocument = z.object({
  openapi: z.literal("3.1.0"),
  info: z.object({ title: z.string(), version: z.string(), description: z.string() }),
  servers: z.array(z.object({ url: z.string() })),
  components: z.object({ securitySchemes: z.record(z.string(), z.record(z.string(), z.string())) }),
  paths: z.record(z.string(), z.record(z.string(), z.record(z.string(), z.unknown()))),
});
