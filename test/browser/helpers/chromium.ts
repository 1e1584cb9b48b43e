// Finds the system's Chromium (Debian's `chromium` package; CHROMIUM_PATH overrides) and launches it
// headless through playwright-core. Never downloads a browser.
import { chromium, type Browser } from "playwright-core";
import { CHROMIUM_FIX, findChromium } from "./chromium-path.js";

/**
 * How long a launch, a navigation or any Playwright wait may take before it fails. The tests wait for
 * events (a selector, a response), which take well under a second on a quiet machine; Playwright's
 * 30 s default was a bound a loaded one could break. This only turns a hang into a failure that says
 * what it waited for, before the runner's whole-file limit.
 */
export const PLAYWRIGHT_WAIT_MS = 5 * 60_000;

export function chromiumPath(): string {
  const found = findChromium();
  if ("problem" in found) throw new Error(`${found.problem}: ${CHROMIUM_FIX}`);
  return found.path;
}

export async function launchChromium(): Promise<Browser> {
  const browser = await chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    timeout: PLAYWRIGHT_WAIT_MS,
    // CI runs as root, where Chromium's sandbox cannot start; the pages are our own, on loopback.
    args: process.getuid?.() === 0 ? ["--no-sandbox"] : [],
  });
  // Every context (browser.newPage makes one too) gets the long wait; a test may still set its own.
  const newContext = browser.newContext.bind(browser);
  browser.newContext = async (options) => {
    const context = await newContext(options);
    context.setDefaultTimeout(PLAYWRIGHT_WAIT_MS);
    context.setDefaultNavigationTimeout(PLAYWRIGHT_WAIT_MS);
    return context;
  };
  return browser;
}
