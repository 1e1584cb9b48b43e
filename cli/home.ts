// The CLI's own folder (TRADEVAULT_HOME, default ~/.config/tradevault): keystores and sessions,
// readable by the owner only.
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { CliError } from "./errors.js";

export function cliHome(env: NodeJS.ProcessEnv = process.env): string {
  return env.TRADEVAULT_HOME || join(env.XDG_CONFIG_HOME || join(homedir(), ".config"), "tradevault");
}

export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
}

/** Writes atomically (temp file + rename) with mode 0600, so a crash never leaves half a secret. */
export function writePrivateFile(path: string, content: string, opts: { exclusive?: boolean } = {}): void {
  ensurePrivateDir(dirname(path));
  if (opts.exclusive && existsSync(path)) throw Object.assign(new Error(`${path} exists`), { code: "EEXIST" });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, content, { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, path);
}

export function readJsonFile<T>(path: string, fallback: T): T {
  if (!existsSync(path)) return fallback;
  try {
    return JSON.parse(readFileSync(path, "utf8")) as T;
  } catch (err) {
    throw new CliError("BAD_FILE", `cannot read ${path}: ${(err as Error).message}`, 1, "repair or remove the file", undefined, { cause: err });
  }
}
