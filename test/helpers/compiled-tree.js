// The test run's JavaScript copy of the package (scripts/run-tests.js). Loading TypeScript through
// tsx costs each test process about 1.3 s of CPU more than loading the same modules as JavaScript:
// on Node 20 a loader's hooks run on a thread of their own, and every one of the ~1,000 modules a
// daemon test imports (kysely alone is 260) makes a round trip to it, node_modules included. So the
// runner transpiles daemon/, cli/, web/, test/, bench/ and scripts/ once per run with esbuild (tsx's own
// transform, with the same tsconfig) into a folder that stands for the package, and runs each test
// file there with plain Node. In that folder:
// - each x.ts is x.js, whose source map points at x.ts (a stack trace names the source line);
// - x.ts itself, and every other file of those folders, is a link to the original: a path built from
//   import.meta.url (a fixture, a worker's .ts entry run through tsx, a folder listed) finds the sources;
// - every other top-level entry is a link (package.json, node_modules, dist, artifacts, bin, ...), so
//   packageRoot() is the copy's root and whatever it reaches there is the package's own.
// The folder is kept between runs (in the temporary folder, one per checkout): only the files whose
// source changed are transpiled again, and what the sources no longer have is removed.
import { transform } from "esbuild";
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, renameSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { tmpdir } from "node:os";
import { dirname, extname, join, relative, resolve } from "node:path";

/** Folders whose TypeScript is transpiled; every other top-level entry is linked. */
const SOURCES = ["daemon", "cli", "web", "test", "bench", "scripts"];

/** The copy of the package at `root`: one folder per checkout, kept between runs. */
export const treeOf = (root) => join(tmpdir(), `tradevault-test-tree-${createHash("sha256").update(resolve(root)).digest("hex").slice(0, 12)}`);

/**
 * Brings the copy of the package at `root` in step with it; returns the copy's path and how many
 * files were transpiled.
 * @param {string} root
 */
export async function compileTree(root) {
  const out = treeOf(root);
  realDir(out);
  const options = transformOptions(root);
  const top = readdirSync(root).filter((name) => name !== ".git");
  for (const name of top) if (!SOURCES.includes(name)) link(join(root, name), join(out, name));
  prune(out, new Set(top));
  const jobs = [];
  try {
    for (const dir of SOURCES) if (existsSync(join(root, dir))) walk(join(root, dir), join(out, dir), options, jobs);
  } finally {
    // Every transpile started has ended before this returns or throws (none writes into a copy being removed).
    const failed = (await Promise.allSettled(jobs)).find((r) => r.status === "rejected");
    if (failed) throw failed.reason;
  }
  return { tree: out, transpiled: jobs.length };
}

/** The transform tsx makes: ESM for Node 20, the package's tsconfig (class fields, targets). */
function transformOptions(root) {
  const { compilerOptions } = JSON.parse(readFileSync(join(root, "tsconfig.json"), "utf8"));
  return { loader: "ts", format: "esm", platform: "node", target: "node20", sourcemap: "inline", tsconfigRaw: { compilerOptions } };
}

function walk(src, out, options, jobs) {
  realDir(out);
  const entries = readdirSync(src, { withFileTypes: true });
  const js = (name) => name.slice(0, -3) + ".js";
  const isTs = (name) => extname(name) === ".ts" && !name.endsWith(".d.ts");
  prune(out, new Set(entries.flatMap((e) => (isTs(e.name) ? [e.name, js(e.name)] : [e.name]))));
  for (const entry of entries) {
    const from = join(src, entry.name);
    const to = join(out, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== "out" && entry.name !== "node_modules") walk(from, to, options, jobs);
      else link(from, to);
      continue;
    }
    link(from, to);
    if (isTs(entry.name)) {
      const out = join(dirname(to), js(entry.name));
      // The .js carries its source's modification time: any other time (older or newer: a file
      // restored with its old time) means the source is not the one it was made from.
      if (!existsSync(out) || !sameTime(statSync(out), statSync(from))) jobs.push(transpile(from, out, options));
    }
  }
}

/** The same modification time, as far as utimes can copy one (to the millisecond, give or take its rounding). */
const sameTime = (a, b) => Math.abs(a.mtimeMs - b.mtimeMs) < 1;

async function transpile(from, js, options) {
  const code = readFileSync(from, "utf8");
  // The map names the source by its path from the .js file, so Node's stack traces show test/x.ts:line.
  const result = await transform(code, { ...options, sourcefile: relative(dirname(js), from) });
  // Written aside and renamed: a runner started by a test (run-tests.test.ts) brings the same copy in
  // step while files run from it, and must never leave a half-written module there.
  const aside = `${js}.${process.pid}.tmp`;
  writeFileSync(aside, result.code);
  const { atime, mtime } = statSync(from);
  utimesSync(aside, atime, mtime);
  renameSync(aside, js);
}

/**
 * Makes `path` a folder of the copy's own. A link there (a folder that was linked in an earlier run)
 * goes first, so nothing is ever written through it into the package.
 */
function realDir(path) {
  try {
    if (!lstatSync(path).isDirectory()) rmSync(path, { force: true });
  } catch {
    /* nothing there yet */
  }
  mkdirSync(path, { recursive: true });
}

/** Removes what `dir` holds beyond `keep` (a source deleted or renamed since the last run). */
function prune(dir, keep) {
  for (const name of readdirSync(dir)) if (!keep.has(name)) rmSync(join(dir, name), { recursive: true, force: true });
}

/** A link at `to` to `from`, unless one is there already. */
function link(from, to) {
  try {
    if (lstatSync(to).isSymbolicLink() && readlinkSync(to) === from) return;
    rmSync(to, { recursive: true, force: true });
  } catch {
    /* nothing there yet */
  }
  symlinkSync(from, to);
}
