// `tradevaultd` command line: flags with TRADEVAULT_* environment twins, then the composition root.
import { Command, Option } from "commander";
import { ConfigError, resolveConfig, type ConfigInput } from "./config.js";
import { createSim, startDaemon, packageVersion } from "./main.js";
import type { Config } from "./config.js";

const collect = (value: string, previous: string[] = []) => [...previous, ...value.split(",").filter(Boolean)];

function program(): Command {
  const opt = (flags: string, description: string, env: string) => new Option(flags, description).env(env);
  return new Command("tradevaultd")
    .description("tradevault daemon: HTTP API, oracle loop and chain indexer on SQLite")
    .version(packageVersion())
    .addOption(opt("--host <host>", "address to listen on", "TRADEVAULT_HOST").default("127.0.0.1"))
    .addOption(opt("--port <port>", "port to listen on (0 = any free port)", "TRADEVAULT_PORT").default("8420"))
    .addOption(opt("--public-url <url>", "address users reach (sign-in domain and URI)", "TRADEVAULT_PUBLIC_URL"))
    .addOption(opt("--data-dir <dir>", "database, keys and chain data", "TRADEVAULT_DATA_DIR").default("./data"))
    .addOption(opt("--log-level <level>", "fatal|error|warn|info|debug|trace|silent", "TRADEVAULT_LOG_LEVEL").default("info"))
    .addOption(opt("--cors-origin <origin>", "allowed browser origin (repeatable)", "TRADEVAULT_CORS_ORIGIN").argParser(collect))
    .addOption(opt("--tls-cert <file>", "PEM certificate: serve HTTPS", "TRADEVAULT_TLS_CERT"))
    .addOption(opt("--tls-key <file>", "PEM private key for --tls-cert", "TRADEVAULT_TLS_KEY"))
    .addOption(opt("--trust-proxy", "trust X-Forwarded-* from a TLS-terminating proxy", "TRADEVAULT_TRUST_PROXY"))
    .addOption(opt("--exchange <kind>", "sim | hyperliquid-testnet | hyperliquid", "TRADEVAULT_EXCHANGE").default("sim"))
    .addOption(opt("--allow-mainnet", "confirm trading on Hyperliquid mainnet", "TRADEVAULT_ALLOW_MAINNET"))
    .addOption(opt("--sim-port <port>", "port of the embedded sim exchange (0 = any free port)", "TRADEVAULT_SIM_PORT").default("0"))
    .addOption(opt("--sim-only", "run the sim exchange alone (for frontends and tools)", "TRADEVAULT_SIM_ONLY"))
    .addOption(opt("--sim-feed <feed>", "sim prices: random | static | <csv file>", "TRADEVAULT_SIM_FEED").default("random"))
    .addOption(opt("--exchange-timeout <seconds>", "how long to wait for the exchange before an order is in doubt", "TRADEVAULT_EXCHANGE_TIMEOUT").default("10"))
    .addOption(opt("--rpc-url <url>", "an external EVM chain instead of the embedded one", "TRADEVAULT_RPC_URL"))
    .addOption(opt("--chain-id <id>", "chain id the --rpc-url must serve (998: HyperEVM testnet)", "TRADEVAULT_CHAIN_ID"))
    .addOption(opt("--chain-port <port>", "port of the embedded chain's JSON-RPC (0 = any free port)", "TRADEVAULT_CHAIN_PORT").default("0"))
    .addOption(opt("--factory-address <address>", "an already deployed VaultFactory on --rpc-url", "TRADEVAULT_FACTORY_ADDRESS"))
    .addOption(opt("--settlement-token <address>", "ERC-20 (6 decimals, EIP-2612) used for settlement on --rpc-url", "TRADEVAULT_SETTLEMENT_TOKEN"))
    .addOption(opt("--operator-key-file <file>", "operator/oracle key (hex); default: generated in <data-dir>/keys", "TRADEVAULT_OPERATOR_KEY_FILE"))
    .addOption(opt("--oracle-interval <seconds>", "seconds between oracle cycles", "TRADEVAULT_ORACLE_INTERVAL").default("60"))
    .addOption(opt("--stale-after <seconds>", "age after which a vault balance is stale for trading", "TRADEVAULT_STALE_AFTER").default("120"))
    .addOption(opt("--market-slippage <percent>", "price bound of market orders around the mid", "TRADEVAULT_MARKET_SLIPPAGE").default("5"))
    .addOption(opt("--sign-in-rate-limit <n>", "sign-in requests per minute per IP", "TRADEVAULT_SIGN_IN_RATE_LIMIT").default("30"))
    .addOption(opt("--order-rate-limit <n>", "order requests per second per session", "TRADEVAULT_ORDER_RATE_LIMIT").default("20"))
    .addOption(opt("--session-max-age <days>", "absolute session lifetime", "TRADEVAULT_SESSION_MAX_AGE").default("30"))
    .showHelpAfterError();
}

function toConfigInput(o: Record<string, unknown>): ConfigInput {
  return {
    host: o.host as string,
    port: o.port as string,
    publicUrl: o.publicUrl as string | undefined,
    dataDir: o.dataDir as string,
    logLevel: o.logLevel as ConfigInput["logLevel"],
    corsOrigins: (o.corsOrigin as string[] | undefined) ?? [],
    tlsCert: o.tlsCert as string | undefined,
    tlsKey: o.tlsKey as string | undefined,
    trustProxy: Boolean(o.trustProxy),
    exchange: o.exchange as ConfigInput["exchange"],
    allowMainnet: Boolean(o.allowMainnet),
    simPort: o.simPort as string,
    simOnly: Boolean(o.simOnly),
    simFeed: o.simFeed as string,
    marketSlippage: o.marketSlippage as string,
    exchangeTimeout: o.exchangeTimeout as string,
    rpcUrl: o.rpcUrl as string | undefined,
    chainId: o.chainId as string | undefined,
    chainPort: o.chainPort as string,
    factoryAddress: o.factoryAddress as string | undefined,
    settlementToken: o.settlementToken as string | undefined,
    operatorKeyFile: o.operatorKeyFile as string | undefined,
    oracleInterval: o.oracleInterval as string,
    staleAfter: o.staleAfter as string,
    signInRateLimit: o.signInRateLimit as string,
    orderRateLimit: o.orderRateLimit as string,
    sessionMaxAgeDays: o.sessionMaxAge as string,
  };
}

export async function main(argv: string[]): Promise<void> {
  const cmd = program();
  cmd.parse(argv);
  let config;
  try {
    config = resolveConfig(toConfigInput(cmd.opts()));
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`tradevaultd: ${err.message}`);
      process.exitCode = 2;
      return;
    }
    throw err;
  }
  if (config.simOnly) return runSimOnly(config);
  const daemon = await startDaemon({ config }).catch((err: NodeJS.ErrnoException) => {
    console.error(`tradevaultd: cannot start: ${err.code === "EADDRINUSE" ? `port ${config.port} is in use` : err.message}`);
    process.exitCode = 1;
    return undefined;
  });
  if (!daemon) return;
  let signals = 0;
  const onSignal = () => {
    if (++signals > 1) process.exit(130); // a second Ctrl-C means now
    daemon.stop().catch((err) => {
      console.error(`tradevaultd: error while stopping: ${err.message}`);
      process.exitCode = 1;
    });
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
}

/** `--sim-only`: the Hyperliquid-compatible sim exchange alone, for frontends and other tools. */
async function runSimOnly(config: Config): Promise<void> {
  const sim = createSim(config, Date.now);
  await sim.start();
  console.log(`tradevaultd: sim exchange listening on ${sim.url} (POST /info, /exchange; loopback-only /sim/faucet, /sim/price)`);
  const stop = () => {
    sim.stop().catch((err) => {
      console.error(`tradevaultd: error while stopping: ${err.message}`);
      process.exitCode = 1;
    });
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}
