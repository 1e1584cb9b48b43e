// One data object, two renderers: a human view on a terminal, one JSON document with --json.
import type { Writable } from "node:stream";
import type { Warning } from "../daemon/http/responses.js";
import type { Prompts } from "./prompt.js";

export interface Io {
  stdout: Writable;
  stderr: Writable;
  stdinIsTTY: boolean;
  env: NodeJS.ProcessEnv;
  /** Terminal questions; @inquirer/prompts unless a test scripts the answers. */
  prompts?: Prompts;
}

export function printResult(io: Io, json: boolean, data: unknown, human: () => string): void {
  io.stdout.write(json ? `${JSON.stringify({ ok: true, data }, null, 2)}\n` : `${human()}\n`);
}

/** Aligned key: value lines. */
export function keyValues(entries: Array<[string, unknown]>): string {
  const width = Math.max(...entries.map(([k]) => k.length));
  return entries.map(([k, v]) => `${`${k}:`.padEnd(width + 2)}${v ?? "-"}`).join("\n");
}

/** A plain text table with a header row. */
export function table(columns: string[], rows: unknown[][]): string {
  if (rows.length === 0) return "(none)";
  const cells = [columns, ...rows.map((r) => r.map((c) => (c === null || c === undefined ? "-" : String(c))))];
  const widths = columns.map((_, i) => Math.max(...cells.map((r) => r[i]!.length)));
  return cells.map((r) => r.map((c, i) => c.padEnd(widths[i]!)).join("  ").trimEnd()).join("\n");
}

/** The daemon's advisory warnings, one stderr line each, so a script's stdout stays one document. */
export function printWarnings(io: Io, warnings: readonly Warning[] | undefined): void {
  for (const w of warnings ?? []) io.stderr.write(`warning: ${w.message} (${w.code})\n`);
}
