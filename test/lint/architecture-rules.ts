// The parts and arrows of docs/architecture.md, parsed from its three tables, so the document is the
// one place the structure is written down and this test cannot drift from it.
import type { ImportEdge } from "./import-graph.js";

export interface Part { name: string; sources: string[] }
export interface Allowed { from: string; to: string[]; typesOnly: boolean; only: string[] | null; row: string }
export interface Never { from: string[]; parts: string[]; packages: string[]; runtimeOnly: boolean; row: string }
export interface Rules { parts: Part[]; allowed: Allowed[]; never: Never[] }

/** The rows of the first table under a `## heading`, each as its cells. */
function table(doc: string, heading: string): string[][] {
  const at = doc.indexOf(`\n## ${heading}\n`);
  if (at < 0) throw new Error(`docs/architecture.md has no "## ${heading}" section`);
  const section = doc.slice(at + 1).split(/\n## /)[0]!.split("\n").slice(1).join("\n");
  const lines = section.split("\n").filter((l) => l.startsWith("|"));
  return lines.slice(2).map((l) => l.slice(1, -1).split("|").map((c) => c.trim()));
}

const ticked = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
const words = (cell: string) => cell.replace(/`[^`]*`/g, "").split(",").map((w) => w.trim()).filter(Boolean);

/** "a, b", "any daemon part", "every part but a, b" or "every daemon part but a" as part names. */
function partList(cell: string, parts: Part[]): string[] {
  const all = parts.map((p) => p.name);
  const daemon = parts.filter((p) => p.sources.every((s) => s.startsWith("daemon/"))).map((p) => p.name);
  const m = /^(?:any|every) (daemon )?part(?: but (.+))?$/.exec(cell.replace(/`[^`]*`/g, "").replace(/,\s*$/, "").trim());
  if (!m) return words(cell);
  const but = m[2] ? words(m[2]) : [];
  return (m[1] ? daemon : all).filter((p) => !but.includes(p));
}

export function parseRules(doc: string): Rules {
  const parts = table(doc, "Parts").map(([name, sources]) => ({ name: name!, sources: ticked(sources!) }));
  const known = new Set(parts.map((p) => p.name));
  const check = (names: string[], row: string) => {
    for (const n of names) if (!known.has(n)) throw new Error(`docs/architecture.md names an unknown part "${n}" in: ${row}`);
    return names;
  };
  const allowed = table(doc, "Allowed arrows").map(([from, to, restriction]) => {
    const row = `${from} -> ${to} ${restriction}`.trim();
    const only = ticked(restriction!);
    return { from: check([from!], row)[0]!, to: check(partList(to!, parts), row), typesOnly: /types only/.test(restriction!), only: only.length ? only : null, row };
  });
  const never = table(doc, "Never").map(([from, to, kind]) => {
    const row = `${from} -> ${to} (${kind})`;
    const targets = to!.replace(/`[^`]*`/g, "").replace(/[,\s]/g, "") ? partList(to!, parts) : [];
    return { from: check(partList(from!, parts), row), parts: check(targets, row), packages: ticked(to!), runtimeOnly: /run-time/.test(kind!), row };
  });
  return { parts, allowed, never };
}

/** The part a file belongs to: a file named in the table first, then the longest folder that holds it. */
export function partOf(parts: Part[], file: string): string | undefined {
  let best: { name: string; length: number } | undefined;
  for (const p of parts) {
    for (const s of p.sources) {
      const length = s === file ? Infinity : s.endsWith("/") && file.startsWith(s) ? s.length : -1;
      if (length >= 0 && (!best || length > best.length)) best = { name: p.name, length };
    }
  }
  return best?.name;
}

export const isPackage = (to: string) => !/\.tsx?$/.test(to);

/** Why an import between two parts is allowed (the first row that allows it), or undefined. */
export function allowedBy(rules: Rules, edge: ImportEdge, from: string, to: string): Allowed | undefined {
  return rules.allowed.find((a) => a.from === from && a.to.includes(to)
    && (!a.typesOnly || edge.typeOnly) && (!a.only || a.only.includes(edge.to)));
}

/** The "Never" row an import breaks, or undefined. `to` is the target's part, undefined for a package. */
export function forbiddenBy(rules: Rules, edge: ImportEdge, from: string, to: string | undefined): Never | undefined {
  return rules.never.find((n) => n.from.includes(from) && (!n.runtimeOnly || !edge.typeOnly)
    && (to === undefined ? n.packages.includes(edge.to) : n.parts.includes(to)));
}
