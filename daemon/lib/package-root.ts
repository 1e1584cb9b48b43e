// Finds the package's root folder (where package.json, artifacts/ and data samples live), whether the
// code runs from TypeScript sources (tsx) or from dist/. Lets the bins run from any working directory.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

let cached: string | undefined;

export function packageRoot(): string {
  if (cached) return cached;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(dir, "package.json");
    if (existsSync(manifest) && JSON.parse(readFileSync(manifest, "utf8")).name === "tradevault") {
      cached = dir;
      return dir;
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error("cannot find the tradevault package root");
    dir = parent;
  }
}

/** The package's version, from its package.json (what --version and /healthz report). */
export const packageVersion = (): string =>
  (JSON.parse(readFileSync(join(packageRoot(), "package.json"), "utf8")) as { version: string }).version;
