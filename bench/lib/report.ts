// What a benchmark returns and how the runner prints it: one row per figure, with the baseline
// measured in the same run, their ratio, the target and whether it was met.
import { availableParallelism, cpus } from "node:os";

export interface Figure {
  label: string;
  value: number;
  unit: string;
  baseline?: number;
  /** How value/baseline reads, e.g. "0.62x". Defaults to value / baseline. */
  ratio?: string;
  target?: string;
  met?: boolean;
}

export interface BenchResult {
  name: string;
  /** The sizes it ran at, in words. */
  setup: string;
  figures: Figure[];
  /** Peak resident set of the daemon process (or the process doing the daemon's work), MiB. */
  peakRssMb: number;
  notes: string[];
  /** Wall time of the whole benchmark, setup included. */
  seconds: number;
}

export const mib = (kb: number) => Math.round(kb / 1024);

export function fmt(n: number | undefined, unit = ""): string {
  if (n === undefined || Number.isNaN(n)) return "-";
  const abs = Math.abs(n);
  const digits = abs >= 100 ? 0 : abs >= 10 ? 1 : abs >= 1 ? 2 : 3;
  const text = n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: 0 });
  return unit ? `${text} ${unit}` : text;
}

const ratioOf = (f: Figure) => f.ratio ?? (f.baseline ? `${fmt(f.value / f.baseline)}x` : "-");
const metOf = (f: Figure) => (f.met === undefined ? "" : f.met ? "yes" : "NO");

function rows(results: BenchResult[]): string[][] {
  const out: string[][] = [];
  for (const r of results) {
    r.figures.forEach((f, i) => {
      out.push([
        i === 0 ? r.name : "", f.label, fmt(f.value, f.unit), f.baseline === undefined ? "-" : fmt(f.baseline, f.unit), ratioOf(f),
        f.target ?? "", metOf(f), i === 0 ? `${r.peakRssMb} MiB` : "",
      ]);
    });
  }
  return out;
}

const HEAD = ["benchmark", "figure", "value (median)", "baseline (same run)", "ratio", "target", "met", "daemon peak RSS"];

export function textTable(results: BenchResult[]): string {
  const all = [HEAD, ...rows(results)];
  const widths = HEAD.map((_, c) => Math.max(...all.map((r) => r[c]!.length)));
  const line = (r: string[]) => r.map((cell, c) => cell.padEnd(widths[c]!)).join("  ").trimEnd();
  return [line(HEAD), widths.map((w) => "-".repeat(w)).join("  "), ...rows(results).map(line)].join("\n");
}

export function markdownTable(results: BenchResult[]): string {
  const esc = (s: string) => s.replace(/\|/g, "\\|");
  return [
    `| ${HEAD.join(" | ")} |`,
    `|${HEAD.map(() => "---").join("|")}|`,
    ...rows(results).map((r) => `| ${r.map(esc).join(" | ")} |`),
  ].join("\n");
}

export function machine(): string {
  const cpu = cpus()[0]?.model ?? "unknown CPU";
  return `${availableParallelism()} cores (${cpu}), Node ${process.version}, ${process.platform} ${process.arch}`;
}

/** A line on the way through a long benchmark (its time of day first), so a failure shows where it stood. */
export function progress(message: string): void {
  process.stdout.write(`    ${new Date().toISOString().slice(11, 19)} ${message}\n`);
}
