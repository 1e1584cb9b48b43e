// `tradevaultd` command line: the flags of config.ts's FLAGS table, each with its TRADEVAULT_*
// environment twin, then the composition root; or one of the maintenance commands (backup, restore,
// migrate-store), which take their own flags after their name. main gives the exit code (0 ok, 1 failure, 2 usage,
// 130 after a second Ctrl-C); bin/tradevaultd exits with it.
import { Command, CommanderError, InvalidArgumentError, Option } from "commander";
import { assertSharable, ConfigError, envName, FLAGS, resolveConfig, type Config, type ConfigInput, type FlagSpec } from "./config.js";
import { isPostgresUrl } from "./backup/database-url.js";
import { packageVersion } from "./lib/package-root.js";

const collect = (value: string, previous: string[] = []) => [...previous, ...value.split(",").filter(Boolean)];

const version = packageVersion;

const flags = () => Object.entries(FLAGS) as Array<[keyof typeof FLAGS, FlagSpec]>;

function option(spec: FlagSpec): Option {
  const o = new Option(spec.flag, spec.description).env(envName(spec));
  if (spec.default !== undefined) o.default(spec.default);
  if (spec.list) o.argParser(collect);
  return o;
}

/** What the command line asked for: run the daemon (the default) or a maintenance command. */
export type Choice =
  | { kind: "daemon" }
  | { kind: "backup"; dir: string; dataDir: string; databaseUrl?: string }
  | { kind: "restore"; dir: string; dataDir: string }
  | { kind: "migrate-store"; from: string; to: string };

const dataDirOption = (description: string) => new Option("--data-dir <dir>", description).env(envName(FLAGS.dataDir));

/** A flag typed before the command's name (`tradevaultd --data-dir X backup DIR`) counts for it too. */
function ownOrTypedBefore(cmd: Command, sub: Command, attr: string): unknown {
  const typedBefore = sub.getOptionValueSource(attr) !== "cli" && cmd.getOptionValueSource(attr) === "cli";
  return typedBefore ? cmd.opts()[attr] : sub.opts()[attr];
}

function postgresUrl(value: string): string {
  if (!isPostgresUrl(value)) throw new InvalidArgumentError("must be a postgres:// or postgresql:// URL");
  return value;
}

function migrateStoreCommand(cmd: Command, choose: (c: Choice) => void): void {
  cmd.command("migrate-store")
    .description("move a data directory's SQLite database into an empty PostgreSQL database that several daemons can share, checking every table's row count and checksum; run it with the daemon stopped")
    .requiredOption("--from <file>", "the SQLite database: <data-dir>/tradevault-<network>.db")
    .requiredOption("--to <url>", "an empty PostgreSQL database (postgres://user:password@host:5432/tradevault)", postgresUrl)
    .addHelpText("after", "\nExample:\n  npx tradevaultd migrate-store --from ./data/tradevault-testnet.db --to postgres://tradevault@db.internal/tradevault")
    .action((o: { from: string; to: string }) => choose({ kind: "migrate-store", from: o.from, to: o.to }));
}

function maintenance(cmd: Command, choose: (c: Choice) => void): void {
  cmd.command("backup")
    .description("copy the data directory (databases, keys, chain records and snapshots) into <dir>, with a manifest of checksums; safe while the daemon runs")
    .argument("<dir>", "a new or empty folder for the backup (created 0700; it will hold private keys)")
    .addOption(dataDirOption("the data directory to back up").default(FLAGS.dataDir.default))
    .addOption(new Option("--database-url <url>", "the PostgreSQL database the daemon runs on, if it does: not backed up here (use pg_dump); said so in the output")
      .env(envName(FLAGS.databaseUrl)))
    .addHelpText("after", "\nExample:\n  npx tradevaultd backup /var/backups/tradevault-$(date +%F) --data-dir ./data")
    .action((dir: string, _o: unknown, sub: Command) => {
      // `tradevaultd --data-dir X backup DIR` means X too: a flag typed before the command beats the
      // environment and the default, as it would for the daemon.
      const dataDir = ownOrTypedBefore(cmd, sub, "dataDir") as string;
      const databaseUrl = ownOrTypedBefore(cmd, sub, "databaseUrl") as string | undefined;
      choose({ kind: "backup", dir, dataDir, ...(databaseUrl ? { databaseUrl } : {}) });
    });
  cmd.command("restore")
    .description("check a backup against its manifest and lay it out as a new data directory; refuses a damaged or partial backup")
    .argument("<dir>", "the backup folder")
    .addOption(dataDirOption("the new data directory (must not exist, or be empty)").makeOptionMandatory())
    .addHelpText("after", "\nExample:\n  npx tradevaultd restore /var/backups/tradevault-2026-11-23 --data-dir ./data-restored\n  npx tradevaultd --data-dir ./data-restored")
    .action((dir: string, o: { dataDir: string }) => choose({ kind: "restore", dir, dataDir: o.dataDir }));
  migrateStoreCommand(cmd, choose);
}

export function program(choose: (c: Choice) => void = () => {}): Command {
  const cmd = new Command("tradevaultd")
    .description("tradevault daemon: HTTP API, oracle loop and chain indexer on SQLite")
    .version(version())
    .showHelpAfterError()
    .exitOverride()
    // The daemon's flags go before a command's name; after it, the command's own.
    .enablePositionalOptions()
    .action(() => choose({ kind: "daemon" }));
  for (const [, spec] of flags()) cmd.addOption(option(spec));
  maintenance(cmd, choose);
  return cmd;
}

/**
 * The parsed command line as config input, keyed as the config is. Commander sets a switch to true
 * whenever its environment twin exists, whatever it says, so a switch taken from the environment
 * carries the variable's text instead, for the schema to read as yes or no.
 */
export function configInput(cmd: Command): ConfigInput {
  const opts = cmd.opts();
  const input: Record<string, unknown> = {};
  for (const [key, spec] of flags()) {
    const attr = option(spec).attributeName();
    const fromEnv = spec.toggle && cmd.getOptionValueSource(attr) === "env";
    input[key] = fromEnv ? process.env[envName(spec)] : opts[attr];
  }
  return input as ConfigInput;
}

/** Parses argv (node, script, flags...) and the environment into a validated config. */
export function readConfig(argv: string[]): Config {
  const cmd = program();
  cmd.parse(argv);
  return resolveConfig(configInput(cmd));
}

/** What to do, from the command line: an exit code already decided, a maintenance command, or the daemon. */
type Plan = { kind: "exit"; code: number } | { kind: "maintenance"; choice: Exclude<Choice, { kind: "daemon" }> } | { kind: "daemon"; config: Config };

function plan(argv: string[]): Plan {
  let choice: Choice = { kind: "daemon" };
  try {
    const cmd = program((c) => (choice = c));
    cmd.parse(argv);
    if (choice.kind !== "daemon") return { kind: "maintenance", choice };
    const config = resolveConfig(configInput(cmd));
    assertSharable(config, process.env);
    return { kind: "daemon", config };
  } catch (err) {
    // Commander has printed the error (or the help, or the version) already.
    if (err instanceof CommanderError) return { kind: "exit", code: err.exitCode === 0 ? 0 : 2 };
    if (err instanceof ConfigError) {
      console.error(`tradevaultd: ${err.message}`);
      return { kind: "exit", code: 2 };
    }
    throw err;
  }
}

/**
 * Runs the command line to its end and gives the exit code for bin/ to exit with: 0 ok, 1 failure,
 * 2 usage, 130 when a second Ctrl-C (or SIGTERM) cut a shutdown short. The daemon's code comes once
 * it has stopped.
 */
export async function main(argv: string[]): Promise<number> {
  const p = plan(argv);
  if (p.kind === "exit") return p.code;
  if (p.kind === "maintenance") return runMaintenance(p.choice);
  const { config } = p;
  // Loaded only now, so --help, --version and usage errors answer without loading the daemon.
  const { createSim, startDaemon } = await import("./main.js");
  if (config.simOnly) {
    const sim = createSim(config, Date.now);
    await sim.start();
    console.log(`tradevaultd: sim exchange listening on ${sim.url} (POST /info, /exchange; loopback-only /sim/faucet, /sim/price)`);
    return untilSignalled(() => sim.stop());
  }
  try {
    const daemon = await startDaemon({ config });
    return untilSignalled(() => daemon.stop());
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    console.error(`tradevaultd: cannot start: ${code === "EADDRINUSE" ? `port ${config.port} is in use` : (err as Error).message}`);
    return 1;
  }
}

/**
 * Waits for SIGINT or SIGTERM, then stops: 0 once stopped, 1 if stopping failed. A second signal
 * means now: 130, without waiting for the stop to end.
 */
function untilSignalled(stop: () => Promise<void>): Promise<number> {
  return new Promise((resolve) => {
    let signals = 0;
    const onSignal = () => {
      if (++signals > 1) return resolve(130);
      stop().then(
        () => resolve(0),
        (err: Error) => {
          console.error(`tradevaultd: error while stopping: ${err.message}`);
          resolve(1);
        },
      );
    };
    process.on("SIGINT", onSignal);
    process.on("SIGTERM", onSignal);
  });
}

/** backup / restore / migrate-store: loaded only when asked for; a refusal is a failure (1), its message one line. */
async function runMaintenance(choice: Exclude<Choice, { kind: "daemon" }>): Promise<number> {
  const { runBackup, runMigrateStore, runRestore } = await import("./backup/commands.js");
  const out = { log: (line: string) => console.log(line) };
  try {
    if (choice.kind === "backup") await runBackup(choice, out);
    else if (choice.kind === "restore") await runRestore(choice, out);
    else await runMigrateStore(choice, out);
    return 0;
  } catch (err) {
    console.error(`tradevaultd ${choice.kind}: ${(err as Error).message}`);
    return 1;
  }
}
