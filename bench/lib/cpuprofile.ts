// Reads a .cpuprofile (what `node --cpu-prof` and the worker's profiler write) and lists where the
// time went: self time per function, and inclusive time per function (callees included).
// Usage: node --import tsx bench/lib/cpuprofile.ts <file.cpuprofile> [top=25]
import { readFileSync } from "node:fs";
import { relative } from "node:path";
import { fileURLToPath } from "node:url";

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

export interface Hot {
  name: string;
  selfPct: number;
  totalPct: number;
}

const root = fileURLToPath(new URL("../..", import.meta.url));

function label(n: Node): string {
  const f = n.callFrame;
  const file = f.url ? relative(root, f.url.replace(/^file:\/\//, "")) : "";
  return `${f.functionName || "(anonymous)"} ${file ? `${file}:${f.lineNumber + 1}` : ""}`.trim();
}

export function hotFunctions(p: Profile, top = 25): { self: Hot[]; total: Hot[] } {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const selfTime = new Map<number, number>();
  p.samples.forEach((id, i) => selfTime.set(id, (selfTime.get(id) ?? 0) + (p.timeDeltas[i] ?? 0)));
  const all = [...selfTime.values()].reduce((a, b) => a + b, 0) || 1;
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  for (const [id, t] of selfTime) {
    self.set(label(byId.get(id)!), (self.get(label(byId.get(id)!)) ?? 0) + t);
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const name = label(byId.get(cur)!);
      if (seen.has(name)) continue; // recursion counts once
      seen.add(name);
      total.set(name, (total.get(name) ?? 0) + t);
    }
  }
  const list = (m: Map<string, number>) =>
    [...m].sort((a, b) => b[1] - a[1]).slice(0, top).map(([name, t]) => ({ name, selfPct: 0, totalPct: 0, t: (t / all) * 100 }));
  return {
    self: list(self).map(({ name, t }) => ({ name, selfPct: t, totalPct: 0 })),
    total: list(total).map(({ name, t }) => ({ name, selfPct: 0, totalPct: t })),
  };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const file = process.argv[2];
  if (!file) throw new Error("usage: cpuprofile.ts <file.cpuprofile> [top]");
  const { self, total } = hotFunctions(JSON.parse(readFileSync(file, "utf8")) as Profile, Number(process.argv[3] ?? 25));
  console.log("self time:");
  for (const h of self) console.log(`  ${h.selfPct.toFixed(1).padStart(5)}%  ${h.name}`);
  console.log("inclusive time:");
  for (const h of total) console.log(`  ${h.totalPct.toFixed(1).padStart(5)}%  ${h.name}`);
}
