// `tradevaultd` command line: the flags of config.ts's FLAGS table, each with its TRADEVAULT_*
// environment twin, then the composition root; or one of the maintenance commands (backup, restore),
// which take their own flags after their name. Exit codes: 0 ok, 1 failure, 2 usage.
import { Command, CommanderError, Option } from "commander";
import { ConfigError, envName, FLAGS, resolveConfig, type Config, type ConfigInput, type FlagSpec } from "./config.js";
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
  | { kind: "backup" | "restore"; dir: string; dataDir: string };

const dataDirOption = (description: string) => new Option("--data-dir <dir>", description).env(envName(FLAGS.dataDir));

function maintenance(cmd: Command, choose: (c: Choice) => void): void {
  cmd.command("backup")
    .description("copy the data directory (databases, keys, chain records and snapshots) into <dir>, with a manifest of checksums; safe while the daemon runs")
    .argument("<dir>", "a new or empty folder for the backup (created 0700; it will hold private keys)")
    .addOption(dataDirOption("the data directory to back up").default(FLAGS.dataDir.default))
    .addHelpText("after", "\nExample:\n  tradevaultd backup /var/backups/tradevault-$(date +%F) --data-dir ./data")
    .action((dir: string, o: { dataDir: string }, sub: Command) => {
      // `tradevaultd --data-dir X backup DIR` means X too: a flag typed before the command beats the
      // environment and the default, as it would for the daemon.
      const typedBefore = sub.getOptionValueSource("dataDir") !== "cli" && cmd.getOptionValueSource("dataDir") === "cli";
      choose({ kind: "backup", dir, dataDir: typedBefore ? (cmd.opts().dataDir as string) : o.dataDir });
    });
  cmd.command("restore")
    .description("check a backup against its manifest and lay it out as a new data directory; refuses a damaged or partial backup")
    .argument("<dir>", "the backup folder")
    .addOption(dataDirOption("the new data directory (must not exist, or be empty)").makeOptionMandatory())
    .addHelpText("after", "\nExample:\n  tradevaultd restore /var/backups/tradevault-2026-11-23 --data-dir ./data-restored\n  tradevaultd --data-dir ./data-restored")
    .action((dir: string, o: { dataDir: string }) => choose({ kind: "restore", dir, dataDir: o.dataDir }));
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

export async function main(argv: string[]): Promise<void> {
  let config: Config;
  let choice: Choice = { kind: "daemon" };
  try {
    const cmd = program((c) => (choice = c));
    cmd.parse(argv);
    if (choice.kind !== "daemon") return await runMaintenance(choice);
    config = resolveConfig(configInput(cmd));
  } catch (err) {
    if (err instanceof CommanderError) {
      // Commander has printed the error (or the help, or the version) already.
      process.exitCode = err.exitCode === 0 ? 0 : 2;
      return;
    }
    if (err instanceof ConfigError) {
      console.error(`tradevaultd: ${err.message}`);
      process.exitCode = 2;
      return;
    }
    throw err;
  }
  // Loaded only now, so --help, --version and usage errors answer without loading the daemon.
  const { createSim, startDaemon } = await import("./main.js");
  if (config.simOnly) return runSimOnly(config, createSim);
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

/** backup / restore: loaded only when asked for; a refusal is a failure (1), its message one line. */
async function runMaintenance(choice: Exclude<Choice, { kind: "daemon" }>): Promise<void> {
  const { runBackup, runRestore } = await import("./backup/commands.js");
  const out = { log: (line: string) => console.log(line) };
  try {
    await (choice.kind === "backup" ? runBackup(choice, out) : runRestore(choice, out));
  } catch (err) {
    console.error(`tradevaultd ${choice.kind}: ${(err as Error).message}`);
    process.exitCode = 1;
  }
}

/** `--sim-only`: the Hyperliquid-compatible sim exchange alone, for frontends and other tools. */
async function runSimOnly(config: Config, createSim: typeof import("./main.js").createSim): Promise<void> {
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
