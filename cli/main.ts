// The `tradevault` program: global options and the command groups. Returns the exit code; only
// bin/ exits.
import { Command, CommanderError } from "commander";
import { walletCommand } from "./commands/wallet.js";
import { sessionCommands } from "./commands/session.js";
import { agentCommand } from "./commands/agent.js";
import { simCommand } from "./commands/sim.js";
import { tradingCommands } from "./commands/trading.js";
import { pricesCommand } from "./commands/prices.js";
import { proposalsCommand } from "./commands/proposals.js";
import { vaultsCommand } from "./commands/vaults.js";
import { eventsCommand } from "./commands/events.js";
import { webhooksCommand } from "./commands/webhooks.js";
import { noticesCommand } from "./commands/notices.js";
import { demoCommand } from "./commands/demo.js";
import { verifyCommand } from "./commands/verify.js";
import { DEFAULT_URL } from "./context.js";
import { CliError, EXIT, ExitCode } from "./errors.js";
import type { Io } from "./output.js";
import { packageVersion } from "./version.js";

/** Commander's messages (and their "Did you mean" hints) as one line, like every other failure. */
const oneLine = (text: string) => text.trim().split(/\s*\n\s*/).join(" ");

export function buildProgram(io: Io): Command {
  const program = new Command("tradevault")
    .description("tradevault CLI: wallets, sign-in, trading and vaults, through tradevaultd's HTTP API")
    .option("--url <url>", `daemon URL (env TRADEVAULT_URL, default ${DEFAULT_URL})`)
    .option("--json", "machine-readable output: one JSON document, errors included")
    .option("--debug", "print stack traces of failures (for bug reports)")
    .version(packageVersion(), "-V, --version", "print the version")
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
      outputError: (s, write) => write(`tradevault: ${oneLine(s)} (see --help)\n`),
    });
  program.addCommand(walletCommand(io));
  for (const cmd of sessionCommands(io)) program.addCommand(cmd);
  program.addCommand(simCommand(io));
  program.addCommand(agentCommand(io));
  for (const cmd of tradingCommands(io)) program.addCommand(cmd);
  program.addCommand(pricesCommand(io));
  program.addCommand(proposalsCommand(io));
  program.addCommand(vaultsCommand(io));
  program.addCommand(eventsCommand(io));
  program.addCommand(webhooksCommand(io));
  program.addCommand(noticesCommand(io));
  program.addCommand(verifyCommand(io));
  program.addCommand(demoCommand(io));
  const output = program.configureOutput();
  const override = (cmd: Command) => {
    cmd.exitOverride().configureOutput(output);
    cmd.commands.forEach(override);
  };
  override(program);
  return program;
}

interface Flags {
  json: boolean;
  debug: boolean;
}

function report(io: Io, flags: Flags, err: CliError, original: unknown = err): number {
  const [first] = err.message.split("\n");
  io.stderr.write(`tradevault: ${first}${err.suggestion ? ` (${err.suggestion})` : ""}\n`);
  if (flags.debug) {
    io.stderr.write(`${debugText(original)}\n`);
    if (err.details !== undefined) io.stderr.write(`details: ${JSON.stringify(err.details, null, 2)}\n`);
  }
  if (flags.json) {
    const error = { code: err.code, message: err.message, suggestion: err.suggestion, details: err.details };
    // One line: after `events --json` (NDJSON) the error must be one more line a reader can parse.
    io.stdout.write(`${JSON.stringify({ ok: false, error })}\n`);
  }
  return err.exitCode;
}

/** The whole story for --debug: the stack, and the stacks of its causes. */
function debugText(err: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = err; e !== undefined && parts.length < 5; e = (e as { cause?: unknown }).cause) {
    parts.push(e instanceof Error ? (e.stack ?? String(e)) : String(e));
    if (!(e instanceof Error)) break;
  }
  return parts.join("\ncaused by: ");
}

function toCliError(err: unknown): CliError {
  if (err instanceof CliError) return err;
  if ((err as Error).name === "ExitPromptError") return new CliError("CANCELLED", "cancelled", EXIT.FAILURE);
  const message = err instanceof Error ? err.message : String(err);
  return new CliError("INTERNAL", `unexpected error: ${message}`, EXIT.FAILURE, "run again with --debug for the details");
}

export async function main(
  argv: string[],
  io: Io = { stdout: process.stdout, stderr: process.stderr, stdinIsTTY: process.stdin.isTTY === true, env: process.env },
): Promise<number> {
  const flags = { json: argv.includes("--json"), debug: argv.includes("--debug") };
  try {
    await buildProgram(io).parseAsync(argv);
    return EXIT.OK;
  } catch (err) {
    if (err instanceof CommanderError) {
      // Help and version are not failures; every other commander error is a usage error.
      if (err.exitCode === 0) return EXIT.OK;
      if (flags.json) io.stdout.write(`${JSON.stringify({ ok: false, error: { code: "USAGE", message: oneLine(err.message) } })}\n`);
      return EXIT.USAGE;
    }
    // The reader of our output went away (`tradevault vaults export ... | head`): nothing failed.
    if ((err as NodeJS.ErrnoException).code === "EPIPE") return EXIT.OK;
    if (err instanceof ExitCode) return err.exitCode;
    return report(io, flags, toCliError(err), err);
  }
}
