// tradevaultd's command line: every flag of the FLAGS table and its TRADEVAULT_* twin mean the same,
// bad values are usage errors (exit 2, one line), --help lists every flag, --version the package's.
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { readConfig } from "../../daemon/cli-entry.js";
import { envName, flagName, FLAGS, type ConfigKey, type FlagSpec } from "../../daemon/config.js";
import { tempDir } from "../helpers/util.js";

const ROOT = new URL("../../", import.meta.url);
const BIN = new URL("bin/tradevaultd", ROOT).pathname;

/** A value other than the default for each flag, and what it needs beside it to be a valid config. */
const SAMPLES: Record<ConfigKey, { value?: string; with?: string[]; env?: string }> = {
  host: { value: "localhost" },
  port: { value: "9123" },
  publicUrl: { value: "https://vault.example" },
  dataDir: { value: "/tmp/elsewhere" },
  logLevel: { value: "debug" },
  corsOrigins: { value: "https://a.example,https://b.example/x" },
  tlsCert: { value: "c.pem", with: ["--tls-key", "k.pem"] },
  tlsKey: { value: "k.pem", with: ["--tls-cert", "c.pem"] },
  trustProxy: {},
  exchange: { value: "hyperliquid-testnet" },
  exchangeUrl: { value: "http://127.0.0.1:9999/" },
  allowMainnet: {},
  simPort: { value: "7000" },
  simOnly: {},
  simFeed: { value: "static" },
  simControls: { value: "off" },
  simWsConnectionsPerIp: { value: "50" },
  simWsUsersPerIp: { value: "40" },
  exchangeTimeout: { value: "2.5" },
  rpcUrl: { value: "http://127.0.0.1:8545", with: ["--chain-id", "998"] },
  chainId: { value: "998" },
  chainPort: { value: "8555" },
  chainSnapshotInterval: { value: "120" },
  chainCompactBlocks: { value: "5000" },
  factoryAddress: { value: "0x" + "ab".repeat(20) },
  settlementToken: { value: "0x" + "cd".repeat(20) },
  operatorKeyFile: { value: "/tmp/op.key" },
  oracleInterval: { value: "30" },
  staleAfter: { value: "600" },
  // A negated switch: --no-price-stream, and its twin says it positively (TRADEVAULT_PRICE_STREAM=false).
  priceStream: { env: "false" },
  breachMargin: { value: "1.25" },
  deadManSeconds: { value: "300" },
  simScheduleCancelVolume: { value: "0" },
  simFunding: { value: "0.0001" },
  alertUrls: { value: "slack:https://hooks.slack.example/T1/B2/x,http://127.0.0.1:9999/alerts" },
  alertGasBelow: { value: "0.05", with: ["--alert-url", "http://127.0.0.1:9999/alerts"] },
  marketSlippage: { value: "1.5" },
  signInRateLimit: { value: "5" },
  orderRateLimit: { value: "7" },
  readCache: { value: "0.5" },
  readWeightPerUser: { value: "60" },
  readWeightAllUsers: { value: "200" },
  metricsPort: { value: "9464" },
  databaseUrl: { value: "postgres://tradevault@127.0.0.1/tradevault", with: ["--rpc-url", "http://127.0.0.1:8545", "--chain-id", "998", "--exchange-url", "http://127.0.0.1:8500"] },
  dbIdleInTransactionTimeout: { value: "7.5" },
  dbLockTimeout: { value: "0" },
  dbStatementTimeout: { value: "60" },
  dbConnectTimeout: { value: "2" },
  dbKeepaliveIdle: { value: "10" },
  dbKeepaliveInterval: { value: "4" },
  dbKeepaliveCount: { value: "5" },
  webhooksAllowPrivate: {},
  sessionMaxAgeDays: { value: "2" },
};

const specs = () => Object.entries(FLAGS) as Array<[ConfigKey, FlagSpec]>;

/** Runs `fn` with no TRADEVAULT_* variable but `env`, then puts the environment back. */
function withEnv<T>(env: Record<string, string>, fn: () => T): T {
  const saved = { ...process.env };
  for (const k of Object.keys(process.env)) if (k.startsWith("TRADEVAULT_")) delete process.env[k];
  Object.assign(process.env, env);
  try {
    return fn();
  } finally {
    for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
    Object.assign(process.env, saved);
  }
}

const argv = (...args: string[]) => ["node", "tradevaultd", ...args];

/**
 * Runs bin/tradevaultd. Should a broken rule let it start after all, it starts in a scratch folder
 * on a free port, and the timeout ends it.
 */
async function run(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("TRADEVAULT_")));
  const scratch = tempDir();
  try {
    return await new Promise((resolve) => {
      const options = { cwd: scratch.path, env: { ...clean, TRADEVAULT_PORT: "0", TRADEVAULT_DATA_DIR: scratch.path, ...env }, timeout: 30_000 };
      execFile(process.execPath, [BIN, ...args], options, (err, stdout, stderr) => {
        resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
      });
    });
  } finally {
    scratch.remove();
  }
}

test("every flag has a sample here, and its twin is TRADEVAULT_ and the flag in upper snake case", () => {
  assert.equal(Object.keys(SAMPLES).sort(), Object.keys(FLAGS).sort());
  assert.is(envName(FLAGS.dataDir), "TRADEVAULT_DATA_DIR");
  assert.is(envName(FLAGS.sessionMaxAgeDays), "TRADEVAULT_SESSION_MAX_AGE");
  assert.is(envName(FLAGS.corsOrigins), "TRADEVAULT_CORS_ORIGIN");
  assert.is(envName(FLAGS.priceStream), "TRADEVAULT_PRICE_STREAM", "a negated switch's twin is the positive name");
});

test("each flag and its TRADEVAULT_* twin give the same config, and not the default one", () => {
  const defaults = withEnv({}, () => readConfig(argv()));
  for (const [key, spec] of specs()) {
    const { value, with: beside = [], env } = SAMPLES[key];
    const byFlag = withEnv({}, () => readConfig(argv(...beside, flagName(spec), ...(value === undefined ? [] : [value]))));
    const byEnv = withEnv({ [envName(spec)]: env ?? value ?? "true" }, () => readConfig(argv(...beside)));
    assert.equal(byEnv, byFlag, `${flagName(spec)} vs ${envName(spec)}`);
    assert.not.equal(byFlag[key], defaults[key], `${flagName(spec)} was read`);
  }
});

test("a switch's twin is read for what it says: false, 0, no and off mean off", () => {
  for (const no of ["false", "0", "no", "off"]) {
    assert.is(withEnv({ TRADEVAULT_TRUST_PROXY: no }, () => readConfig(argv())).trustProxy, false, no);
  }
  assert.is(withEnv({ TRADEVAULT_TRUST_PROXY: "yes" }, () => readConfig(argv())).trustProxy, true);
  // and the flag beats its twin
  assert.is(withEnv({ TRADEVAULT_TRUST_PROXY: "false" }, () => readConfig(argv("--trust-proxy"))).trustProxy, true);
});

test("--exchange-url: sim only, trailing slash dropped, records in their own database", () => {
  const c = withEnv({}, () => readConfig(argv("--exchange-url", "https://paper.example/hl/")));
  assert.is(c.exchangeUrl, "https://paper.example/hl");
  assert.is(c.network, "sim-remote");
  assert.is(withEnv({}, () => readConfig(argv())).network, "sim");
});

test("a bad value exits 2 with one line naming the flag and its twin, by flag or by environment", async () => {
  const cases: Array<[string[], Record<string, string>, RegExp]> = [
    [["--port", "abc"], {}, /--port \(TRADEVAULT_PORT\)/],
    [[], { TRADEVAULT_PORT: "70000" }, /--port \(TRADEVAULT_PORT\)/],
    [["--log-level", "loud"], {}, /--log-level/],
    [[], { TRADEVAULT_ALLOW_MAINNET: "perhaps" }, /--allow-mainnet \(TRADEVAULT_ALLOW_MAINNET\)/],
    [["--exchange", "hyperliquid-testnet", "--exchange-url", "http://127.0.0.1:1"], {}, /--exchange-url goes with --exchange sim/],
    [["--exchange-url", "ftp://x.example"], {}, /--exchange-url/],
    [[], { TRADEVAULT_SIM_CONTROLS: "public" }, /--sim-controls \(TRADEVAULT_SIM_CONTROLS\)/],
  ];
  for (const [args, env, named] of cases) {
    const r = await run(args, env);
    const what = `${args.join(" ")} ${JSON.stringify(env)}`;
    assert.is(r.code, 2, what);
    assert.is(r.stdout, "", what);
    assert.equal(r.stderr.trimEnd().split("\n").length, 1, `${what}: ${r.stderr}`);
    assert.match(r.stderr, /^tradevaultd: /, what);
    assert.match(r.stderr, named, what);
  }
});

test("--database-url is refused at start without a shared chain, a shared exchange and TRADEVAULT_SECRET, each with its reason", async () => {
  const db = ["--database-url", "postgres://tradevault@127.0.0.1:1/tradevault"];
  const chain = ["--rpc-url", "http://127.0.0.1:1", "--chain-id", "31337"];
  const cases: Array<[string[], Record<string, string>, RegExp]> = [
    [db, { TRADEVAULT_SECRET: "s" }, /--database-url needs --rpc-url .*embedded chain is this daemon's own/],
    [[...db, ...chain], { TRADEVAULT_SECRET: "s" }, /--database-url needs --exchange-url .*embedded sim is this daemon's own/],
    [[...db, ...chain, "--exchange-url", "http://127.0.0.1:1"], {}, /--database-url needs TRADEVAULT_SECRET, the same on every daemon/],
  ];
  for (const [args, env, reason] of cases) {
    const r = await run(args, env);
    assert.is(r.code, 2, args.join(" "));
    assert.equal(r.stderr.trimEnd().split("\n").length, 1, r.stderr);
    assert.match(r.stderr, reason);
  }
});

test("an unknown flag is a usage error too (exit 2)", async () => {
  const r = await run(["--no-such-flag"]);
  assert.is(r.code, 2);
  assert.match(r.stderr, /unknown option '--no-such-flag'/);
});

test("--help lists every flag with its twin and default; --version prints the package version", async () => {
  const help = await run(["--help"]);
  assert.is(help.code, 0);
  const text = help.stdout.replace(/\s+/g, " ");
  for (const [, spec] of specs()) {
    assert.ok(text.includes(spec.flag), spec.flag);
    assert.ok(text.includes(`env: ${envName(spec)})`), envName(spec));
    if (spec.default !== undefined) assert.ok(text.includes(`default: "${spec.default}"`), `${spec.flag} default`);
  }
  const version = await run(["--version"]);
  assert.is(version.code, 0);
  assert.is(version.stdout, `${JSON.parse(readFileSync(new URL("package.json", ROOT), "utf8")).version}\n`);
});

test.run();
