// Finds the system's Chromium (Debian's `chromium` package; CHROMIUM_PATH overrides) and launches it
// headless through playwright-core. Never downloads a browser.
import { chromium, type Browser } from "playwright-core";
import { CHROMIUM_FIX, findChromium } from "./chromium-path.js";

export function chromiumPath(): string {
  const found = findChromium();
  if ("problem" in found) throw new Error(`${found.problem}: ${CHROMIUM_FIX}`);
  return found.path;
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    // CI runs as root, where Chromium's sandbox cannot start; the pages are our own, on loopback.
    args: process.getuid?.() === 0 ? ["--no-sandbox"] : [],
  });
}
