// Prompts happen only on a terminal, never with --json or in CI; otherwise the environment must
// supply the secret, and its absence is a usage error with the variable to set.
import { password as passwordPrompt } from "@inquirer/prompts";
import { usageError } from "./errors.js";
import type { Io } from "./output.js";

export function canPrompt(io: Io, json: boolean): boolean {
  return io.stdinIsTTY && !json && !io.env.CI;
}

export async function askPassword(io: Io, json: boolean, message: string, opts: { confirm?: boolean } = {}): Promise<string> {
  const fromEnv = io.env.TRADEVAULT_PASSWORD;
  if (fromEnv !== undefined && fromEnv !== "") return fromEnv;
  if (!canPrompt(io, json)) {
    throw usageError("no wallet password given", "set TRADEVAULT_PASSWORD, or run on a terminal to be asked");
  }
  const first = await passwordPrompt({ message, mask: "*" });
  if (opts.confirm) {
    // A new password only: unlocking takes whatever password the keystore was made with.
    if (first.length < 8) throw usageError("use a password of at least 8 characters");
    const again = await passwordPrompt({ message: "Repeat the password", mask: "*" });
    if (again !== first) throw usageError("the passwords do not match");
  }
  return first;
}

export async function askSecret(io: Io, json: boolean, envName: string, message: string): Promise<string> {
  const fromEnv = io.env[envName];
  if (fromEnv) return fromEnv;
  if (!canPrompt(io, json)) throw usageError(`no ${message.toLowerCase()} given`, `set ${envName}, or run on a terminal`);
  return passwordPrompt({ message, mask: "*" });
}
