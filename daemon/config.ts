// The daemon's configuration: flags and TRADEVAULT_* environment variables, validated once into a
// frozen object. Each flag is written once, in FLAGS; the command line (cli-entry.ts), the environment
// names and the zod schema are all derived from that table. Durations are seconds at the edge.
import { isIP } from "node:net";
import { resolve } from "node:path";
import { z } from "zod";
import { ALERT_FORMATS, parseAlertTarget } from "./alerts/formats.js";
import { BACKGROUND_WEIGHT_PER_MINUTE } from "./exchange/weight-limiter.js";

const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
const EXCHANGES = ["sim", "hyperliquid-testnet", "hyperliquid"] as const;
/** Who may move the embedded sim's prices through the API (POST /api/sim/price). */
export const SIM_CONTROLS = ["open", "operator", "off"] as const;
export type SimControlsMode = (typeof SIM_CONTROLS)[number];

export interface FlagSpec<S extends z.ZodType = z.ZodType> {
  /** Commander's flag text: `--port <port>` takes a value, `--trust-proxy` is a switch. */
  flag: string;
  description: string;
  /** The default as it would be typed on the command line: --help shows it, the schema parses it. */
  default?: string;
  /** Repeatable, or comma-separated in one value (and in the environment twin). */
  list?: true;
  /** A switch: no value on the command line; its environment twin must say yes or no. */
  toggle?: true;
  field: S;
}

/** A flag that always has a value: the default goes through the same parsing as a given value. */
function valued<S extends z.ZodType>(flag: string, description: string, schema: S, dflt: string): FlagSpec<z.ZodPrefault<S>> {
  return { flag, description, default: dflt, field: schema.prefault(dflt as z.input<S>) };
}

function optional<S extends z.ZodType>(flag: string, description: string, schema: S): FlagSpec<z.ZodOptional<S>> {
  return { flag, description, field: schema.optional() };
}

// The environment twin of a switch arrives as text: "TRADEVAULT_ALLOW_MAINNET=false" must not mean yes.
const yesNo = z.union([z.boolean(), z.stringbool()], { error: "must be true or false (also 1/0, yes/no, on/off)" });

function toggle(flag: string, description: string): FlagSpec<z.ZodDefault<typeof yesNo>> {
  return { flag, description, toggle: true, field: yesNo.default(false) };
}

function list<S extends z.ZodType>(flag: string, description: string, item: S): FlagSpec<z.ZodDefault<z.ZodArray<S>>> {
  return { flag, description, list: true, field: z.array(item).default([]) };
}

const number = (min: number, max: number, opts: { int?: boolean } = {}) => {
  const what = `must be ${opts.int ? "an integer" : "a number"} from ${min} to ${max}`;
  const n = z.coerce.number({ error: what }).min(min, what).max(max, what);
  return opts.int ? n.int(what) : n;
};
const port = () => number(0, 65535, { int: true });
const httpUrl = () => z.url({ protocol: /^https?$/, error: "must be an http(s) URL" });
/** `<format>:<url>` or a bare http(s) URL (json): alerts/formats.ts parses it again at start. */
const alertTarget = () => z.string().superRefine((v, ctx) => {
  try {
    parseAlertTarget(v, "--alert-url");
  } catch (err) {
    ctx.addIssue({ code: "custom", message: `${(err as Error).message.replace(/^--alert-url: /, "")} (give <format>:<url>, format one of ${ALERT_FORMATS.join(", ")}; a bare URL is json)` });
  }
});
const evmAddress = () => z.string().regex(/^0x[0-9a-fA-F]{40}$/, "must be a 0x-prefixed 20-byte hex address");

export const FLAGS = {
  host: valued("--host <host>", "address to listen on", z.string().min(1), "127.0.0.1"),
  port: valued("--port <port>", "port to listen on (0 = any free port)", port(), "8420"),
  publicUrl: optional("--public-url <url>", "address users reach (sign-in domain and URI)", httpUrl()),
  dataDir: valued("--data-dir <dir>", "database, keys and chain data", z.string().min(1), "./data"),
  logLevel: valued("--log-level <level>", LOG_LEVELS.join("|"), z.enum(LOG_LEVELS), "info"),
  corsOrigins: list("--cors-origin <origin>", "allowed browser origin (repeatable)", httpUrl().transform((u) => new URL(u).origin)),
  tlsCert: optional("--tls-cert <file>", "PEM certificate: serve HTTPS", z.string()),
  tlsKey: optional("--tls-key <file>", "PEM private key for --tls-cert", z.string()),
  trustProxy: toggle("--trust-proxy", "trust X-Forwarded-* from a TLS-terminating proxy"),
  exchange: valued("--exchange <kind>", EXCHANGES.join(" | "), z.enum(EXCHANGES), "sim"),
  exchangeUrl: optional(
    "--exchange-url <url>",
    "an external Hyperliquid-compatible exchange (e.g. a tradevaultd --sim-only elsewhere), signed as testnet; only with --exchange sim",
    httpUrl().transform((u) => u.replace(/\/+$/, "")),
  ),
  allowMainnet: toggle("--allow-mainnet", "confirm trading on Hyperliquid mainnet"),
  simPort: valued("--sim-port <port>", "port of the embedded sim exchange (0 = any free port)", port(), "0"),
  simOnly: toggle("--sim-only", "run the sim exchange alone (for frontends and tools)"),
  /** "random" (seeded random walk), "static", or the path of a CSV of prices to replay. */
  simFeed: valued("--sim-feed <feed>", "sim prices: random | static | <csv file>", z.string().min(1), "random"),
  simScheduleCancelVolume: valued("--sim-schedule-cancel-volume <usd>", "traded volume a sim account needs before it may set scheduleCancel (the venue's gate)", z.string().regex(/^\d+(\.\d+)?$/, "must be a USD amount"), "1000000"),
  simControls: optional(
    "--sim-controls <mode>",
    "who may move the embedded sim's prices through the API: open (any signed-in user) | operator (with <data-dir>/keys/operator.token) | off; default: open when listening on loopback only, operator otherwise",
    z.enum(SIM_CONTROLS),
  ),
  simWsConnectionsPerIp: valued("--sim-ws-connections-per-ip <n>", "WebSocket connections the sim accepts per remote address (the venue allows 10; raise it for a sim shared on one box)", number(1, 100_000, { int: true }), "10"),
  simWsUsersPerIp: valued("--sim-ws-users-per-ip <n>", "distinct users in user-specific WebSocket subscriptions per remote address (the venue allows 10)", number(1, 100_000, { int: true }), "10"),
  simFunding: valued("--sim-funding <rate>", "sim hourly funding rate, longs pay when positive (venue floor: 0.0000125)", z.string().regex(/^-?\d+(\.\d+)?$/, "must be a decimal number"), "0"),
  exchangeTimeout: valued("--exchange-timeout <seconds>", "how long to wait for the exchange before an order is in doubt", number(0.1, 120), "10"),
  rpcUrl: optional("--rpc-url <url>", "an external EVM chain instead of the embedded one", httpUrl()),
  chainId: optional("--chain-id <id>", "chain id the --rpc-url must serve (998: HyperEVM testnet)", number(1, Number.MAX_SAFE_INTEGER, { int: true })),
  chainPort: valued("--chain-port <port>", "port of the embedded chain's public JSON-RPC on 127.0.0.1: reads and signed transactions only (0 = any free port)", port(), "0"),
  chainSnapshotInterval: valued("--chain-snapshot-interval <seconds>", "seconds between snapshots of the embedded chain (a restart replays only what came after the newest)", number(1, 86_400), "300"),
  chainCompactBlocks: valued("--chain-compact-blocks <n>", "blocks between compactions of the embedded chain (old blocks dropped, the node reloaded: bounds its memory)", number(100, 10_000_000, { int: true }), "3000"),
  factoryAddress: optional("--factory-address <address>", "an already deployed VaultFactory on --rpc-url", evmAddress()),
  settlementToken: optional("--settlement-token <address>", "ERC-20 (6 decimals, EIP-2612) used for settlement on --rpc-url", evmAddress()),
  operatorKeyFile: optional("--operator-key-file <file>", "operator/oracle key (hex); default: generated in <data-dir>/keys", z.string().min(1)),
  oracleInterval: valued("--oracle-interval <seconds>", "seconds between oracle cycles", number(1, 3600), "60"),
  staleAfter: valued("--stale-after <seconds>", "age after which a vault balance is stale for trading", number(1, 86_400), "120"),
  priceStream: { flag: "--no-price-stream", description: "do not revalue vaults between oracle polls from the exchange's price stream (allMids)", toggle: true as const, field: yesNo.default(true) },
  breachMargin: valued("--breach-margin <points>", "percentage points below a drawdown limit at which a vault is read and written at once between polls", number(0, 50), "0.5"),
  deadManSeconds: optional("--dead-man-seconds <seconds>", "keep the exchange's scheduled cancel this far ahead on every vault account, renewed each oracle cycle (off by default; more than --oracle-interval)", number(10, 86_400, { int: true })),
  alertUrls: list("--alert-url <target>", `where the operator's alerts go, <format>:<url> (format: ${ALERT_FORMATS.join(", ")}; a bare URL is json; repeatable)`, alertTarget()),
  alertGasBelow: optional(
    "--alert-gas-below <amount>",
    "alert when the operator's balance on the chain falls below this, in the chain's native unit (e.g. 0.05); off by default",
    z.string().regex(/^\d+(\.\d{1,18})?$/, "must be an amount in the chain's native unit, e.g. 0.05 (at most 18 decimals)"),
  ),
  marketSlippage: valued("--market-slippage <percent>", "price bound of market orders around the mid", number(0.01, 50), "5"),
  signInRateLimit: valued("--sign-in-rate-limit <n>", "sign-in requests per minute per IP", number(1, Number.MAX_SAFE_INTEGER, { int: true }), "30"),
  orderRateLimit: valued("--order-rate-limit <n>", "order requests per second per session", number(1, Number.MAX_SAFE_INTEGER, { int: true }), "20"),
  readCache: valued("--read-cache <seconds>", "how long an exchange read a user's request caused (account, orders, positions, prices, performance, verify) answers again for the same exchange account (0 = off)", number(0, 60), "5"),
  readWeightPerUser: valued("--read-weight-per-user <n>", "exchange request weight one signed-in user's reads may cost in any minute (past it: answers kept from the last minute, else 429)", number(1, Number.MAX_SAFE_INTEGER, { int: true }), "120"),
  readWeightAllUsers: valued("--read-weight-all-users <n>", "exchange request weight all users' reads together may cost in any minute; on Hyperliquid, what it leaves of the background budget is the oracle's and enforcement's (checked at start)", number(1, Number.MAX_SAFE_INTEGER, { int: true }), "300"),
  metricsPort: optional("--metrics-port <port>", "serve Prometheus metrics (GET /metrics) on this port, on --host; off by default (0 = any free port)", port()),
  databaseUrl: optional(
    "--database-url <url>",
    "a PostgreSQL database (postgres://user:password@host/db) shared by several daemons, instead of <data-dir>'s SQLite file; needs --rpc-url, --exchange-url and TRADEVAULT_SECRET",
    z.string().regex(/^postgres(ql)?:\/\/./i, "must be a postgres:// or postgresql:// URL"),
  ),
  // Every connection of a daemon on --database-url is bounded (db/postgres-pool.ts); 0 turns a timeout off.
  dbIdleInTransactionTimeout: valued("--db-idle-in-transaction-timeout <seconds>", "PostgreSQL ends a daemon's session left idle inside a transaction this long, releasing its locks (a stalled or paused box; 0 = off)", number(0, 3600), "5"),
  dbLockTimeout: valued("--db-lock-timeout <seconds>", "a PostgreSQL statement waiting this long for a lock fails, and its request answers 503 (0 = off)", number(0, 3600), "3"),
  dbStatementTimeout: valued("--db-statement-timeout <seconds>", "a PostgreSQL statement running this long is canceled, and its request answers 503 (0 = off; migrations and migrate-store run without it)", number(0, 3600), "15"),
  dbConnectTimeout: valued("--db-connect-timeout <seconds>", "how long opening a PostgreSQL connection, or waiting for a free one in the pool, may take before a request answers 503", number(0.1, 600), "5"),
  dbKeepaliveIdle: valued("--db-keepalive-idle <seconds>", "silence on a PostgreSQL connection before the first TCP keepalive probe (the server's and the daemon's)", number(1, 7200, { int: true }), "5"),
  dbKeepaliveInterval: valued("--db-keepalive-interval <seconds>", "seconds between the server's keepalive probes of a daemon's connection", number(1, 600, { int: true }), "2"),
  dbKeepaliveCount: valued("--db-keepalive-count <n>", "unanswered keepalive probes after which the server ends a daemon's session", number(1, 100, { int: true }), "3"),
  webhooksAllowPrivate: toggle("--webhooks-allow-private", "let users' webhooks reach loopback, private and link-local addresses (tests; self-hosters whose receivers are on their LAN)"),
  sessionMaxAgeDays: valued("--session-max-age <days>", "absolute session lifetime", number(1, 365), "30"),
};

type Flags = typeof FLAGS;
export type ConfigKey = keyof Flags;

/** `--session-max-age <days>` -> `--session-max-age` */
export const flagName = (spec: FlagSpec): string => spec.flag.split(" ")[0]!;
/** `--session-max-age` -> `TRADEVAULT_SESSION_MAX_AGE` */
// A negated switch (--no-x) has the positive twin TRADEVAULT_X: "TRADEVAULT_X=false" turns it off.
export const envName = (spec: FlagSpec): string =>
  `TRADEVAULT_${flagName(spec).slice(2).replace(/^no-/, "").toUpperCase().replace(/-/g, "_")}`;

const fields = Object.fromEntries(Object.entries(FLAGS).map(([key, spec]) => [key, spec.field])) as {
  [K in ConfigKey]: Flags[K]["field"];
};
export const configSchema = z.object({
  ...fields,
}).strict();

export type ConfigInput = z.input<typeof configSchema>;
export type Config = Readonly<Omit<z.output<typeof configSchema>, "simControls">> & {
  readonly network: Network;
  /** --sim-controls as given, or its default from where the daemon listens (simControlsDefault). */
  readonly simControls: SimControlsMode;
};
/** Which database file a daemon's records go to: paper trading never mixes with real trading. */
export type Network = "sim" | "sim-remote" | "testnet" | "mainnet";

export class ConfigError extends Error {
  override name = "ConfigError";
}

export function isLoopback(host: string): boolean {
  if (host === "localhost") return true;
  if (isIP(host) === 4) return host.startsWith("127.");
  return host === "::1";
}

/** The first problem, named by the flag and its environment twin, as the user wrote them. */
function describeIssue(issue: z.core.$ZodIssue | undefined): string {
  const key = issue?.path[0];
  const spec = typeof key === "string" && key in FLAGS ? (FLAGS[key as ConfigKey] as FlagSpec) : undefined;
  const where = spec ? `${flagName(spec)} (${envName(spec)})` : issue?.path.join(".") || "?";
  return `invalid ${where}: ${issue?.message ?? "invalid value"}`;
}

export function resolveConfig(input: ConfigInput): Config {
  const parsed = configSchema.safeParse(input);
  if (!parsed.success) throw new ConfigError(describeIssue(parsed.error.issues[0]));
  const c = parsed.data;
  checkCombinations(c);
  return Object.freeze({
    ...c, dataDir: resolve(c.dataDir), corsOrigins: Object.freeze([...c.corsOrigins]) as string[], network: networkOf(c),
    simControls: c.simControls ?? simControlsDefault(c),
  });
}

/**
 * A daemon only its own machine reaches is one person's paper desk: any signed-in user may move the
 * sim. One that others reach (beyond loopback, or behind a public URL or a proxy) is shared: a price
 * move hits every user's positions and vaults, so it takes the operator's token.
 */
export function simControlsDefault(c: { host: string; publicUrl?: string; trustProxy: boolean }): SimControlsMode {
  return isLoopback(c.host) && c.publicUrl === undefined && !c.trustProxy ? "open" : "operator";
}

function networkOf(c: z.output<typeof configSchema>): Network {
  if (c.exchange === "hyperliquid-testnet") return "testnet";
  if (c.exchange === "hyperliquid") return "mainnet";
  // A remote sim is shared by several daemons and outlives this one: its records are not the embedded sim's.
  return c.exchangeUrl === undefined ? "sim" : "sim-remote";
}

/** Rules that span more than one flag. */
function checkCombinations(c: z.output<typeof configSchema>): void {
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
  if (c.exchangeUrl !== undefined && c.exchange !== "sim") {
    throw new ConfigError(`--exchange-url goes with --exchange sim only (--exchange ${c.exchange} has its own URL)`);
  }
  if (c.exchangeUrl !== undefined && c.simOnly) {
    throw new ConfigError("--exchange-url and --sim-only do not go together: --sim-only serves a sim exchange, --exchange-url uses one");
  }
  if (c.rpcUrl !== undefined && c.chainId === undefined) {
    throw new ConfigError("--rpc-url needs --chain-id (the chain the RPC must serve, e.g. 998 for HyperEVM testnet)");
  }
  if (c.deadManSeconds !== undefined && c.deadManSeconds <= c.oracleInterval) {
    throw new ConfigError(
      `--dead-man-seconds (${c.deadManSeconds} s) must be more than --oracle-interval (${c.oracleInterval} s): each cycle renews it, so a shorter switch would cancel a live daemon's orders`,
    );
  }
  if (c.alertGasBelow !== undefined && c.alertUrls.length === 0) {
    throw new ConfigError("--alert-gas-below needs --alert-url: the alert has to go somewhere");
  }
  // On the venue, users' reads come out of the background budget: what they may take, the oracle cannot.
  if (c.exchange !== "sim" && c.readWeightAllUsers >= BACKGROUND_WEIGHT_PER_MINUTE) {
    throw new ConfigError(
      `--read-weight-all-users (${c.readWeightAllUsers}) must be less than ${BACKGROUND_WEIGHT_PER_MINUTE}, the weight a minute the oracle, enforcement and users' reads share on Hyperliquid`,
    );
  }
  if (c.staleAfter < c.oracleInterval) {
    throw new ConfigError(`--stale-after (${c.staleAfter} s) must be at least --oracle-interval (${c.oracleInterval} s), or every vault trade would be stale`);
  }
}

/**
 * What sharing a database asks of the daemon command, refused at start with the reason: the chain
 * and the exchange must be the same for every daemon (an embedded one is this daemon's own), and
 * the agent keys must be sealed with one secret every daemon has.
 */
export function sharedDatabaseProblem(config: Config, env: NodeJS.ProcessEnv): string | undefined {
  if (config.databaseUrl === undefined) return undefined;
  if (config.rpcUrl === undefined) {
    return "--database-url needs --rpc-url (with --chain-id): daemons sharing a database share one chain, and the embedded chain is this daemon's own";
  }
  if (config.exchange === "sim" && config.exchangeUrl === undefined && !config.simOnly) {
    return "--database-url needs --exchange-url (e.g. a tradevaultd --sim-only every daemon reaches) or --exchange hyperliquid-testnet: the embedded sim is this daemon's own";
  }
  if (!env.TRADEVAULT_SECRET) {
    return "--database-url needs TRADEVAULT_SECRET, the same on every daemon: the agent keys in the shared database are sealed with it (a key file in one data directory would leave the others unable to trade)";
  }
  return undefined;
}

/** The limits of the daemon's PostgreSQL connections, in milliseconds (the flags are in seconds). */
export function postgresLimitsOf(c: Config) {
  return {
    idleInTransactionMs: c.dbIdleInTransactionTimeout * 1000,
    lockMs: c.dbLockTimeout * 1000,
    statementMs: c.dbStatementTimeout * 1000,
    connectMs: c.dbConnectTimeout * 1000,
    keepAliveIdleMs: c.dbKeepaliveIdle * 1000,
    keepAliveIntervalMs: c.dbKeepaliveInterval * 1000,
    keepAliveCount: c.dbKeepaliveCount,
  };
}

/** Throws ConfigError with the reason a database cannot be shared as configured. */
export function assertSharable(config: Config, env: NodeJS.ProcessEnv): void {
  const problem = sharedDatabaseProblem(config, env);
  if (problem) throw new ConfigError(problem);
}
