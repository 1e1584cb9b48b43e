// CSV answers (RFC 4180): when a route answers CSV instead of its JSON envelope, and how its rows are
// written: streamed from the route's rows as the client reads them (Readable.from pulls one chunk at
// a time), so an export of any size holds one page in memory, never the whole body.
import { Readable } from "node:stream";
import type { Context } from "koa";

export type CsvValue = string | number | null;

export interface CsvRows {
  /** The download's file name (Content-Disposition). */
  filename: string;
  header: string[];
  /** Pages of rows, in answer order. */
  pages: AsyncIterable<CsvValue[][]>;
}

/**
 * CSV only when asked explicitly: `?format=csv`, or an Accept header that prefers text/csv to JSON.
 * No Accept, `*\/*` and `?format=json` keep the JSON envelope.
 */
export function wantsCsv(ctx: Context, query: unknown): boolean {
  const format = (query as { format?: unknown } | undefined)?.format;
  if (format !== undefined) return format === "csv";
  if (!ctx.get("Accept")) return false;
  return ctx.accepts("application/json", "text/csv") === "text/csv";
}

// A cell a spreadsheet would run as a formula gets a leading quote; a negative number stays a number.
const FORMULA = /^[=+@\t\r]|^-(?!\d)/;

export function csvCell(value: CsvValue): string {
  if (value === null) return "";
  let text = String(value);
  if (FORMULA.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export const csvLine = (values: CsvValue[]): string => `${values.map(csvCell).join(",")}\r\n`;

async function* csvChunks(header: string[], first: IteratorResult<CsvValue[][]>, rest: AsyncIterator<CsvValue[][]>) {
  yield csvLine(header);
  for (let page = first; !page.done; page = await rest.next()) yield page.value.map(csvLine).join("");
}

/**
 * Answers `rows` as CSV. The first page is read before anything is sent, so a failure up to there
 * still answers the JSON error envelope; a failure later can only cut the stream short.
 */
export async function sendCsv(ctx: Context, rows: CsvRows): Promise<void> {
  const pages = rows.pages[Symbol.asyncIterator]();
  const first = await pages.next();
  ctx.type = "text/csv; charset=utf-8";
  ctx.set("Content-Disposition", `attachment; filename="${rows.filename}"`);
  ctx.body = Readable.from(csvChunks(rows.header, first, pages), { objectMode: false, highWaterMark: 1 });
}
