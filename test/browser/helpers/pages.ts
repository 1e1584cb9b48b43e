/// <reference lib="dom" />
// One user in their own browser context (cookies, storage) with their own injected wallet, and the
// page problems a test must not ignore: uncaught exceptions and Content-Security-Policy violations.
import { Wallet } from "ethers";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { TestWallet } from "./wallet.js";

export interface User {
  context: BrowserContext;
  page: Page;
  wallet: TestWallet;
  address: string;
  /** Uncaught page errors and CSP violations, as text. */
  problems: string[];
}

export async function openUser(browser: Browser, url: string, opts: { viewport?: { width: number; height: number }; chainId?: number } = {}): Promise<User> {
  const context = await browser.newContext({ viewport: opts.viewport ?? { width: 1280, height: 900 } });
  const wallet = new TestWallet(Wallet.createRandom(), { chainId: opts.chainId ?? 1 });
  await wallet.install(context);
  const page = await context.newPage();
  const problems: string[] = [];
  watch(page, problems);
  await page.goto(url);
  return { context, page, wallet, address: wallet.address, problems };
}

export function watch(page: Page, problems: string[]): void {
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  page.on("console", (m) => {
    if (/Content.Security.Policy|Refused to/i.test(m.text())) problems.push(`CSP: ${m.text()}`);
  });
}

/** Connect wallet -> personal_sign of the sign-in message -> signed in (the header shows the address). */
export async function signIn(u: User): Promise<void> {
  await u.page.click("#connect");
  await u.page.waitForSelector("#tabs:not([hidden])");
  await u.page.waitForFunction((a) => document.querySelector("#who")?.getAttribute("title") === a, u.address);
}

/** Goes to a screen by its hash and waits until it has rendered `ready`. */
/**
 * Opens a route and waits for `ready` in the view drawn for it: the screen before may hold an element
 * with the same id (the account screen's order form, the vault page's), and acting on it would act on
 * a screen about to be replaced.
 */
export async function go(u: User, hash: string, ready: string): Promise<void> {
  await u.page.evaluate((h) => (location.hash = h), hash);
  await u.page.waitForSelector(`#view[data-route=${JSON.stringify(hash)}] ${ready}`);
}

export const errorText = (u: User) => u.page.locator("#error").textContent();

/** Waits for a notice containing `text`; an error banner instead fails at once, with its message. */
export async function expectNotice(u: { page: Page }, text: string): Promise<void> {
  await u.page.waitForSelector(`#notice:has-text(${JSON.stringify(text)}), #error:not([hidden])`);
  if (await u.page.locator("#error:not([hidden])").count()) {
    throw new Error(`the page shows an error instead of "${text}": ${await u.page.textContent("#error")}`);
  }
}
