// The generated reference pages: each is hand-written around one section that `npm run docs` renders
// from the code. test/lint/reference-docs.test.ts renders them again and names what drifted.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { packageRoot } from "../../daemon/lib/package-root.js";
import { renderApiReference, declaredRoutes } from "./api-reference.js";
import { renderConfiguration } from "./configuration.js";
import { drift, splice } from "./markdown.js";

export interface Page {
  /** From the package root. */
  path: string;
  /** The generated section, fresh from the code. */
  render(): Promise<string>;
}

export const PAGES: Page[] = [
  { path: "docs/configuration.md", render: async () => renderConfiguration() },
  { path: "docs/api-reference.md", render: async () => renderApiReference((await declaredRoutes()).routes) },
];

export const readPage = (page: Page, root = packageRoot()): string => readFileSync(join(root, page.path), "utf8");

/** The page as `npm run docs` leaves it. */
export async function regenerated(page: Page, root = packageRoot()): Promise<string> {
  return splice(readPage(page, root), await page.render(), page.path);
}

/** What the page says otherwise than the code, one line a row; empty when in step. */
export async function driftOf(page: Page, root = packageRoot()): Promise<string[]> {
  return drift(page.path, readPage(page, root), await page.render());
}
