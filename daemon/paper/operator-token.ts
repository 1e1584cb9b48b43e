// The operator token: a random secret the daemon writes once to <data-dir>/keys/operator.token (0600,
// folder 0700) and keeps. Whoever can read that file runs the daemon's machine; showing the token
// (header X-Tradevault-Operator) proves it over the API, e.g. to move a shared sim's prices.
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

export const OPERATOR_HEADER = "X-Tradevault-Operator";

export const operatorTokenPath = (dataDir: string) => join(dataDir, "keys", "operator.token");

/** Reads the token at `path`, or writes a new one there when the file does not exist. */
export function loadOrCreateOperatorToken(path: string): string {
  const st = statSync(path, { throwIfNoEntry: false });
  if (st) {
    if ((st.mode & 0o077) !== 0) chmodSync(path, 0o600);
    const token = readFileSync(path, "utf8").trim();
    if (!/^[0-9a-f]{64}$/.test(token)) throw new Error(`${path} does not hold an operator token (64 hex digits); delete it to have a new one written`);
    return token;
  }
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const token = randomBytes(32).toString("hex");
  try {
    // "wx": two daemons starting at once on one data directory end up with the same token.
    writeFileSync(path, `${token}\n`, { mode: 0o600, flag: "wx" });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EEXIST") return loadOrCreateOperatorToken(path);
    throw e;
  }
  return token;
}

/** Constant time whatever `given` is: both sides are hashed to one length before the comparison. */
export function isOperatorToken(expected: string, given: string | undefined): boolean {
  if (given === undefined) return false;
  const digest = (s: string) => createHash("sha256").update(s).digest();
  return timingSafeEqual(digest(expected), digest(given.trim()));
}
