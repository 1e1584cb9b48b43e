// The runner's JavaScript copy of the package (compiled-tree.js): each TypeScript module runs as
// transpiled JavaScript whose stack traces name the source, only what changed is transpiled again,
// what the sources lost goes, the copy stands for the package (its package.json, its node_modules),
// and bringing it in step never writes into the package itself.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { spawnSync } from "node:child_process";
import { existsSync, lstatSync, mkdirSync, readFileSync, realpathSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { compileTree, treeOf } from "./compiled-tree.js";
import { tempDir } from "./util.js";

/** A package of three modules: daemon/ (a class with a field), test/ (fails on request), web/. */
function fakePackage() {
  const dir = tempDir("tradevault-tree-test-");
  const write = (path: string, text: string) => {
    mkdirSync(join(dir.path, path, ".."), { recursive: true });
    writeFileSync(join(dir.path, path), text);
  };
  write("package.json", JSON.stringify({ name: "fake", type: "module" }));
  write("tsconfig.json", JSON.stringify({ compilerOptions: { target: "ES2022", strict: true } }));
  write("daemon/thing.ts", "export class Thing { readonly size: number = 2; }\nexport type Size = number;\n");
  write("test/use.test.ts", [
    `import { Thing, type Size } from "../daemon/thing.js";`,
    `const size: Size = new Thing().size;`,
    `if (process.argv[2] === "fail") throw new Error("asked to fail");`,
    `console.log(JSON.stringify({ size, url: import.meta.url }));`,
  ].join("\n"));
  write("web/page.ts", "export const title: string = 'page';\n");
  write("fixture.txt", "kept\n");
  return dir;
}

const run = (tree: string, ...args: string[]) =>
  spawnSync(process.execPath, ["--enable-source-maps", join(tree, "test", "use.test.js"), ...args], { encoding: "utf8" });

/** Runs `fn` on a fresh fake package and the path of its copy, then removes both. */
async function withPackage(fn: (pkg: string, tree: string) => Promise<void>): Promise<void> {
  const pkg = fakePackage();
  const tree = treeOf(pkg.path);
  try {
    await fn(pkg.path, tree);
  } finally {
    rmSync(tree, { recursive: true, force: true });
    pkg.remove();
  }
}

test("TypeScript runs as JavaScript in the copy, where the package's other files are links, and a stack trace names the .ts line", () => withPackage(async (pkg, tree) => {
  const first = await compileTree(pkg);
  assert.is(first.tree, tree);
  assert.is(first.transpiled, 3);
  const ok = run(tree);
  assert.is(ok.status, 0, ok.stderr);
  assert.equal(JSON.parse(ok.stdout).size, 2);
  for (const linked of ["package.json", "fixture.txt", "test/use.test.ts"]) assert.ok(lstatSync(join(tree, linked)).isSymbolicLink(), linked);
  assert.is(realpathSync(join(tree, "fixture.txt")), realpathSync(join(pkg, "fixture.txt")));
  const failed = run(tree, "fail");
  assert.is(failed.status, 1);
  assert.match(failed.stderr, /asked to fail/);
  assert.match(failed.stderr, /use\.test\.ts:3:\d+/, "the trace names the source's line");
}));

test("only what changed is transpiled again, and what the sources lost is gone from the copy", () => withPackage(async (pkg, tree) => {
  await compileTree(pkg);
  assert.is((await compileTree(pkg)).transpiled, 0);
  writeFileSync(join(pkg, "daemon/thing.ts"), "export class Thing { readonly size: number = 3; }\nexport type Size = number;\n");
  // Edited after it was transpiled, whatever the file system's clock granularity.
  const later = new Date(Date.now() + 5_000);
  utimesSync(join(pkg, "daemon/thing.ts"), later, later);
  assert.is((await compileTree(pkg)).transpiled, 1);
  assert.is(JSON.parse(run(tree).stdout).size, 3);
  // An older version put back with its old time (a copy that keeps times) is transpiled again too.
  const earlier = new Date(Date.now() - 86_400_000);
  writeFileSync(join(pkg, "daemon/thing.ts"), "export class Thing { readonly size: number = 4; }\nexport type Size = number;\n");
  utimesSync(join(pkg, "daemon/thing.ts"), earlier, earlier);
  assert.is((await compileTree(pkg)).transpiled, 1);
  assert.is(JSON.parse(run(tree).stdout).size, 4);
  assert.is((await compileTree(pkg)).transpiled, 0);
  rmSync(join(pkg, "web/page.ts"));
  rmSync(join(pkg, "fixture.txt"));
  await compileTree(pkg);
  assert.not.ok(existsSync(join(tree, "web/page.js")));
  assert.not.ok(existsSync(join(tree, "web/page.ts")));
  assert.not.ok(existsSync(join(tree, "fixture.txt")));
}));

test("a folder linked by an older copy is replaced, never written through: the package's files stay as they were", () => withPackage(async (pkg, tree) => {
  mkdirSync(tree, { recursive: true });
  symlinkSync(join(pkg, "web"), join(tree, "web"));
  await compileTree(pkg);
  assert.ok(lstatSync(join(tree, "web")).isDirectory());
  assert.ok(existsSync(join(tree, "web/page.js")));
  assert.ok(lstatSync(join(pkg, "web/page.ts")).isFile(), "the source is still a file");
  assert.is(readFileSync(join(pkg, "web/page.ts"), "utf8"), "export const title: string = 'page';\n");
  assert.not.ok(existsSync(join(pkg, "web/page.js")), "nothing transpiled into the package");
}));

test.run();
