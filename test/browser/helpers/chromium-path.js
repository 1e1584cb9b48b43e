// Where the system's Chromium is: CHROMIUM_PATH, else Debian's `chromium` package (or a few usual
// places). Plain JavaScript so scripts/run-tests.js can ask before it runs a browser test, and the
// tests themselves (helpers/chromium.ts) use the same answer. Never downloads a browser.
import { existsSync } from "node:fs";

export const CHROMIUM_CANDIDATES = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/lib/chromium/chromium", "/snap/bin/chromium"];

export const CHROMIUM_FIX = "install Debian's chromium (apt-get install chromium) or set CHROMIUM_PATH to a Chromium binary";

/** @returns {{ path: string } | { problem: string }} */
export function findChromium(env = process.env) {
  const fromEnv = env.CHROMIUM_PATH;
  if (fromEnv) return existsSync(fromEnv) ? { path: fromEnv } : { problem: `CHROMIUM_PATH=${fromEnv} does not exist` };
  const found = CHROMIUM_CANDIDATES.find((p) => existsSync(p));
  return found ? { path: found } : { problem: `no Chromium found (looked in ${CHROMIUM_CANDIDATES.join(", ")})` };
}
