// The layering of docs/architecture.md, held against the import graph of daemon/, cli/ and web/src.
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { packageRoot } from "../../daemon/lib/package-root.js";
import { tempDir } from "../helpers/util.js";
import { importsOf, sourceFiles, type ImportEdge } from "./import-graph.js";
import { allowedBy, forbiddenBy, isPackage, parseRules, partOf } from "./architecture-rules.js";

const t = suite("architecture");
const root = packageRoot();
const rules = parseRules(readFileSync(join(root, "docs/architecture.md"), "utf8"));
const files = ["daemon", "cli", "web/src"].flatMap((dir) => sourceFiles(root, dir));
const edges = files.flatMap((f) => importsOf(root, f));
const at = (e: ImportEdge) => `${e.from}:${e.line} imports ${e.to}${e.typeOnly ? " (types)" : ""}`;

t("every source file belongs to a part", () => {
  assert.ok(files.length > 200, `found only ${files.length} source files`);
  assert.equal(files.filter((f) => !partOf(rules.parts, f)), []);
});

t("every import between parts is an arrow docs/architecture.md allows", () => {
  const offenders = edges.flatMap((e) => {
    if (isPackage(e.to)) return [];
    const from = partOf(rules.parts, e.from)!;
    const to = partOf(rules.parts, e.to);
    if (to === undefined) return [`${at(e)}: the target belongs to no part`];
    return from === to || allowedBy(rules, e, from, to) ? [] : [`${at(e)}: no arrow ${from} -> ${to}`];
  });
  assert.equal(offenders, []);
});

t("no import is one docs/architecture.md says must never exist (packages included)", () => {
  const offenders = edges.flatMap((e) => {
    const from = partOf(rules.parts, e.from)!;
    const to = isPackage(e.to) ? undefined : partOf(rules.parts, e.to);
    if (to === from) return [];
    const rule = forbiddenBy(rules, e, from, to);
    return rule ? [`${at(e)}: never ${rule.row}`] : [];
  });
  assert.equal(offenders, []);
});

t("no allowed arrow contradicts a Never row", () => {
  const contradictions = rules.allowed.flatMap((a) => a.to.flatMap((to) => rules.never
    .filter((n) => n.from.includes(a.from) && n.parts.includes(to) && !(n.runtimeOnly && a.typesOnly))
    .map((n) => `allowed "${a.row}" against never "${n.row}"`)));
  assert.equal(contradictions, []);
});

/** The groups of files that import each other at run time, round a cycle (Tarjan's strongly connected components). */
function runtimeCycles(all: ImportEdge[]): string[][] {
  const next = new Map<string, string[]>();
  for (const e of all) if (!e.typeOnly && !isPackage(e.to)) next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (stack.includes(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const group: string[] = [];
    for (let w = stack.pop()!; ; w = stack.pop()!) {
      group.push(w);
      if (w === v) break;
    }
    if (group.length > 1) cycles.push(group.sort());
  };
  for (const v of next.keys()) if (!index.has(v)) visit(v);
  return cycles;
}

t("no files import each other round a cycle at run time, inside a part or across parts", () => {
  assert.equal(runtimeCycles(edges), []);
  // The finder itself: a two-file cycle inside one part is found.
  const loop = (from: string, to: string): ImportEdge => ({ from, to, line: 1, typeOnly: false } as ImportEdge);
  assert.equal(runtimeCycles([loop("daemon/sim/engine/a.ts", "daemon/sim/engine/b.ts"), loop("daemon/sim/engine/b.ts", "daemon/sim/engine/a.ts")]),
    [["daemon/sim/engine/a.ts", "daemon/sim/engine/b.ts"]]);
});

t("the graph reader sees every form of import, and which are types only", () => {
  // The rules are only as good as the reader: each form below must be an edge, typed right.
  const dir = tempDir();
  mkdirSync(join(dir.path, "daemon/http"), { recursive: true });
  writeFileSync(join(dir.path, "daemon/http/sample.ts"), [
    `import type { A } from "../db/a.js";`,
    `import { type B, type C } from "../db/b.js";`,
    `import {`, `  d,`, `  type E,`, `} from "../db/d.js";`,
    `export { f } from "./f.js";`,
    `export type { G } from "../vaults/g.js";`,
    `// import { h } from "../db/h.js";`,
    `const i = await import("../oracle/i.js");`,
    `let j: import("../chain/j.js").J;`,
    `import Koa from "koa";`,
    `import "@koa/router/side-effect";`,
  ].join("\n"));
  const seen = importsOf(dir.path, "daemon/http/sample.ts").map((e) => `${e.line} ${e.to} ${e.typeOnly ? "type" : "run"}`);
  dir.remove();
  assert.equal(seen, ["1 daemon/db/a.ts type", "2 daemon/db/b.ts type", "3 daemon/db/d.ts run", "7 daemon/http/f.ts run",
    "8 daemon/vaults/g.ts type", "10 daemon/oracle/i.ts run", "11 daemon/chain/j.ts type", "12 koa run", "13 @koa/router run"]);
});

t.run();
