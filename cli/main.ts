// The `tradevault` program: global options and the command groups. Returns the exit code; only
// bin/ exits.
import { Command, CommanderError } from "commander";
import { walletCommand } from "./commands/wallet.js";
import { sessionCommands } from "./commands/session.js";
import { agentCommand } from "./commands/agent.js";
import { simCommand } from "./commands/sim.js";
import { tradingCommands } from "./commands/trading.js";
import { proposalsCommand } from "./commands/proposals.js";
import { vaultsCommand } from "./commands/vaults.js";
import { eventsCommand } from "./commands/events.js";
import { demoCommand } from "./commands/demo.js";
import { DEFAULT_URL } from "./context.js";
import { CliError, EXIT } from "./errors.js";
import type { Io } from "./output.js";

export function buildProgram(io: Io): Command {
  const program = new Command("tradevault")
    .description("tradevault CLI: wallets, sign-in, trading and vaults, through tradevaultd's HTTP API")
    .option("--url <url>", `daemon URL (env TRADEVAULT_URL, default ${DEFAULT_URL})`)
    .option("--json", "machine-readable output: one JSON document, errors included")
    .showHelpAfterError()
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
    });
  program.addCommand(walletCommand(io));
  for (const cmd of sessionCommands(io)) program.addCommand(cmd);
  program.addCommand(simCommand(io));
  program.addCommand(agentCommand(io));
  for (const cmd of tradingCommands(io)) program.addCommand(cmd);
  program.addCommand(proposalsCommand(io));
  program.addCommand(vaultsCommand(io));
  program.addCommand(eventsCommand(io));
  program.addCommand(demoCommand(io));
  const override = (cmd: Command) => {
    cmd.exitOverride();
    cmd.commands.forEach(override);
  };
  override(program);
  return program;
}

function report(io: Io, json: boolean, err: CliError): number {
  io.stderr.write(`tradevault: ${err.message}${err.suggestion ? ` (${err.suggestion})` : ""}\n`);
  if (json) {
    const error = { code: err.code, message: err.message, suggestion: err.suggestion, details: err.details };
    io.stdout.write(`${JSON.stringify({ ok: false, error }, null, 2)}\n`);
  }
  return err.exitCode;
}

export async function main(
  argv: string[],
  io: Io = { stdout: process.stdout, stderr: process.stderr, stdinIsTTY: process.stdin.isTTY === true, env: process.env },
): Promise<number> {
  const program = buildProgram(io);
  const json = argv.includes("--json");
  try {
    await program.parseAsync(argv);
    return EXIT.OK;
  } catch (err) {
    if (err instanceof CommanderError) {
      // Help and version are not failures; every other commander error is a usage error.
      if (err.exitCode === 0) return EXIT.OK;
      if (json) io.stdout.write(`${JSON.stringify({ ok: false, error: { code: "USAGE", message: err.message } })}\n`);
      return EXIT.USAGE;
    }
    if (err instanceof CliError) return report(io, json, err);
    if ((err as Error).name === "ExitPromptError") return report(io, json, new CliError("CANCELLED", "cancelled", EXIT.FAILURE));
    return report(io, json, new CliError("INTERNAL", `unexpected error: ${(err as Error).stack ?? String(err)}`));
  }
}
