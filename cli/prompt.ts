// Prompts happen only on a terminal, never with --json or in CI; otherwise the environment must
// supply the secret, and its absence is a usage error with the variable to set. On a terminal a bad
// answer is asked again (the prompt's validate), never a reason to exit.
import { confirm, input, password } from "@inquirer/prompts";
import { usageError } from "./errors.js";
import type { Io } from "./output.js";

/** What a prompt's validate returns: true, or the message to show before asking again. */
export type Check = (value: string) => true | string;

/** The terminal questions the CLI asks; tests pass scripted answers through Io.prompts. */
export interface Prompts {
  input(o: { message: string; required?: boolean; validate?: Check }): Promise<string>;
  password(o: { message: string; mask?: string; validate?: Check }): Promise<string>;
  confirm(o: { message: string; default?: boolean }): Promise<boolean>;
}

export const promptsOf = (io: Io): Prompts => io.prompts ?? { input, password, confirm };

export function canPrompt(io: Io, json: boolean): boolean {
  return io.stdinIsTTY && !json && !io.env.CI;
}

export const MIN_PASSWORD = 8;
export const newPasswordCheck: Check = (p) => p.length >= MIN_PASSWORD || `use a password of at least ${MIN_PASSWORD} characters`;

export async function askPassword(io: Io, json: boolean, message: string, opts: { confirm?: boolean } = {}): Promise<string> {
  const fromEnv = io.env.TRADEVAULT_PASSWORD;
  if (fromEnv !== undefined && fromEnv !== "") return fromEnv;
  if (!canPrompt(io, json)) {
    throw usageError("no wallet password given", "set TRADEVAULT_PASSWORD, or run on a terminal to be asked");
  }
  const ask = promptsOf(io);
  // Unlocking takes whatever password the keystore was made with; only a new one is checked.
  if (!opts.confirm) return ask.password({ message, mask: "*" });
  for (let attempt = 1; ; attempt++) {
    const first = await ask.password({ message, mask: "*", validate: newPasswordCheck });
    const again = await ask.password({ message: "Repeat the password", mask: "*" });
    if (again === first) return first;
    if (attempt === 3) throw usageError("the passwords do not match");
    io.stderr.write("The passwords do not match; once more.\n");
  }
}

export async function askSecret(io: Io, json: boolean, envName: string, message: string): Promise<string> {
  const fromEnv = io.env[envName];
  if (fromEnv) return fromEnv;
  if (!canPrompt(io, json)) throw usageError(`no ${message.toLowerCase()} given`, `set ${envName}, or run on a terminal`);
  return promptsOf(io).password({ message, mask: "*" });
}
