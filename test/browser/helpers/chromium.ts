// Finds the system's Chromium (Debian's `chromium` package; CHROMIUM_PATH overrides) and launches it
// headless through playwright-core. Never downloads a browser.
import { existsSync } from "node:fs";
import { chromium, type Browser } from "playwright-core";

const CANDIDATES = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/lib/chromium/chromium", "/snap/bin/chromium"];

export function chromiumPath(): string {
  const fromEnv = process.env.CHROMIUM_PATH;
  if (fromEnv) {
    if (!existsSync(fromEnv)) throw new Error(`CHROMIUM_PATH=${fromEnv} does not exist`);
    return fromEnv;
  }
  const found = CANDIDATES.find((p) => existsSync(p));
  if (!found) throw new Error(`no Chromium found (looked in ${CANDIDATES.join(", ")}): install Debian's chromium package or set CHROMIUM_PATH`);
  return found;
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    // CI runs as root, where Chromium's sandbox cannot start; the pages are our own, on loopback.
    args: process.getuid?.() === 0 ? ["--no-sandbox"] : [],
  });
}
