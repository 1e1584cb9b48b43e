// The daemon's configuration: flags and TRADEVAULT_* environment variables, validated once into a
// frozen object. Durations are seconds at the edge.
import { isIP } from "node:net";
import { resolve } from "node:path";
import { z } from "zod";

const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

export const configSchema = z
  .object({
    host: z.string().min(1).default("127.0.0.1"),
    port: z.coerce.number().int().min(0).max(65535).default(8420),
    publicUrl: z.url({ protocol: /^https?$/ }).optional(),
    dataDir: z.string().min(1).default("./data"),
    logLevel: z.enum(LOG_LEVELS).default("info"),
    corsOrigins: z.array(z.url({ protocol: /^https?$/ }).transform((u) => new URL(u).origin)).default([]),
    tlsCert: z.string().optional(),
    tlsKey: z.string().optional(),
    trustProxy: z.boolean().default(false),
    exchange: z.enum(["sim", "hyperliquid-testnet", "hyperliquid"]).default("sim"),
    allowMainnet: z.boolean().default(false),
    simPort: z.coerce.number().int().min(0).max(65535).default(0),
    simOnly: z.boolean().default(false),
    /** An external Hyperliquid-compatible exchange (a `tradevaultd --sim-only` elsewhere), signed as testnet. */
    exchangeUrl: z.url({ protocol: /^https?$/ }).transform((u) => u.replace(/\/+$/, "")).optional(),
    /** "random" (seeded random walk), "static", or the path of a CSV of prices to replay. */
    simFeed: z.string().min(1).default("random"),
    marketSlippage: z.coerce.number().min(0.01).max(50).default(5),
    exchangeTimeout: z.coerce.number().min(0.1).max(120).default(10),
    rpcUrl: z.url({ protocol: /^https?$/ }).optional(),
    chainId: z.coerce.number().int().positive().optional(),
    chainPort: z.coerce.number().int().min(0).max(65535).default(0),
    factoryAddress: z.string().regex(/^0x[0-9a-fA-F]{40}$/).optional(),
    settlementToken: z.string().regex(/^0x[0-9a-fA-F]{40}$/).optional(),
    operatorKeyFile: z.string().min(1).optional(),
    oracleInterval: z.coerce.number().min(1).max(3600).default(60),
    staleAfter: z.coerce.number().min(1).max(86_400).default(120),
    signInRateLimit: z.coerce.number().int().min(1).default(30),
    orderRateLimit: z.coerce.number().int().min(1).default(20),
    sessionMaxAgeDays: z.coerce.number().min(1).max(365).default(30),
  })
  .strict();

export type ConfigInput = z.input<typeof configSchema>;
export type Config = Readonly<z.output<typeof configSchema>> & { readonly network: Network };
export type Network = "sim" | "testnet" | "mainnet";

export class ConfigError extends Error {
  override name = "ConfigError";
}

export function isLoopback(host: string): boolean {
  if (host === "localhost") return true;
  if (isIP(host) === 4) return host.startsWith("127.");
  return host === "::1";
}

export function resolveConfig(input: ConfigInput): Config {
  const parsed = configSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(`invalid configuration: ${issue?.path.join(".") || "?"}: ${issue?.message}`);
  }
  const c = parsed.data;
  if ((c.tlsCert === undefined) !== (c.tlsKey === undefined)) {
    throw new ConfigError("--tls-cert and --tls-key go together");
  }
  // Production means listening beyond loopback: then sessions need HTTPS, served here or by a proxy.
  if (!isLoopback(c.host) && c.tlsCert === undefined && !c.trustProxy) {
    throw new ConfigError(
      `refusing to listen on ${c.host} over plain HTTP: pass --tls-cert/--tls-key, or --trust-proxy behind a TLS proxy`,
    );
  }
  if (c.exchange === "hyperliquid" && !c.allowMainnet) {
    throw new ConfigError("--exchange hyperliquid trades real money: add --allow-mainnet to confirm");
  }
  if (c.rpcUrl !== undefined && c.chainId === undefined) {
    throw new ConfigError("--rpc-url needs --chain-id (the chain the RPC must serve, e.g. 998 for HyperEVM testnet)");
  }
  if (c.staleAfter < c.oracleInterval) {
    throw new ConfigError(`--stale-after (${c.staleAfter} s) must be at least --oracle-interval (${c.oracleInterval} s), or every vault trade would be stale`);
  }
  const network: Network = c.exchange === "sim" ? "sim" : c.exchange === "hyperliquid-testnet" ? "testnet" : "mainnet";
  return Object.freeze({ ...c, dataDir: resolve(c.dataDir), corsOrigins: Object.freeze([...c.corsOrigins]) as string[], network });
}
