// A value of a SQLite row as PostgreSQL's column takes it, and every value, from either side, in one
// canonical text for the checksums. The two schemas differ only in how they store what they store
// (test/db/schema-parity): integers stay integers (0/1 flags included; bigint on PostgreSQL for what
// can pass 2^31), text stays text, and the journal's signed transactions are bytea on PostgreSQL,
// where an old SQLite journal row may still hold them as 0x text.
import { deflateRawSync } from "node:zlib";
import { AppError } from "../errors.js";
import type { SourceValue } from "./sqlite-source.js";

export type Kind = "integer" | "text" | "bytes";

/** The kind of a PostgreSQL column, from information_schema's data_type. */
export function kindOf(dataType: string): Kind {
  if (/^(smallint|integer|bigint)$/.test(dataType)) return "integer";
  if (/^(text|character varying|character)$/.test(dataType)) return "text";
  if (dataType === "bytea") return "bytes";
  throw new AppError("INTERNAL", `a column of type ${dataType} in the target: this command does not know how to move it`);
}

/**
 * Columns whose bytes change on the way. `tx_journal.raw`: SQLite rows from before migration 007 may
 * hold the signed transaction as 0x text, later ones deflated; PostgreSQL holds it deflated, as
 * db/chain-repo.ts packs it (and reads either).
 */
const FORMS: Record<string, (v: string) => Buffer> = {
  "tx_journal.raw": (v) => {
    if (!/^0x(?:[0-9a-fA-F]{2})*$/.test(v)) throw new AppError("INVALID_INPUT", `tx_journal.raw holds text that is not a 0x transaction (${v.slice(0, 20)}...); nothing was copied`);
    return deflateRawSync(Buffer.from(v.slice(2), "hex"));
  },
};

const formOf = (table: string, column: string): ((v: string) => Buffer) | undefined =>
  Object.hasOwn(FORMS, `${table}.${column}`) ? FORMS[`${table}.${column}`] : undefined;

const KIND_WORDS: Record<Kind, string> = { integer: "an integer", text: "text", bytes: "bytes" };

const what = (v: SourceValue): string =>
  Buffer.isBuffer(v) ? `${v.length} bytes` : typeof v === "number" && !Number.isInteger(v) ? `the fraction ${v}` : `${typeof v} ${JSON.stringify(String(v)).slice(0, 40)}`;

function refuse(table: string, column: string, v: SourceValue, kind: Kind): never {
  throw new AppError("INVALID_INPUT", `${table}.${column} holds ${what(v)} where PostgreSQL keeps ${KIND_WORDS[kind]}; nothing was copied`);
}

/** The value to insert into PostgreSQL's column of `kind`: exact, or refused with the column named. */
export function toTarget(table: string, column: string, kind: Kind, v: SourceValue): string | Buffer | null {
  if (v === null) return null;
  const form = formOf(table, column);
  if (form && typeof v === "string") return form(v);
  if (kind === "integer" && (typeof v === "bigint" || (typeof v === "number" && Number.isInteger(v)))) return v.toString();
  if (kind === "text" && typeof v === "string") return v;
  if (kind === "bytes" && Buffer.isBuffer(v)) return v;
  return refuse(table, column, v, kind);
}

/**
 * One value as checksummed, the same on both sides: integers in decimal (whether a driver handed out
 * a number, a bigint or int8's text), text as it is, bytes as \x hex, null as null. A source value
 * of a column in FORMS is summed in the form the target must hold, byte for byte.
 */
export function canonical(table: string, column: string, v: unknown): string | null {
  if (v === null || v === undefined) return null;
  const form = formOf(table, column);
  const value = form && typeof v === "string" ? form(v) : v;
  if (Buffer.isBuffer(value)) return `\\x${value.toString("hex")}`;
  return String(value);
}
