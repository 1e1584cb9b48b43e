// Values for the route fuzz, generated from the JSON Schema the OpenAPI document gives each parameter
// and body: one valid value of a schema, and the broken values to put in its place, one at a time.
// A seeded generator makes every run with the same seed send the same requests.
import { mulberry32 } from "../../helpers/mulberry32.js";

/** The subset of JSON Schema the daemon's document uses (zod's toJSONSchema output). */
export interface Schema {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  items?: Schema;
  minItems?: number;
  maxItems?: number;
  anyOf?: Schema[];
  default?: unknown;
  example?: unknown;
}

export interface Rng {
  /** An integer in [0, n). */
  int(n: number): number;
  pick<T>(items: readonly T[]): T;
  chance(p: number): boolean;
  hex(digits: number): string;
}

/** Seeded values (mulberry32): the same everywhere for a given seed. */
export function seededRng(seed: number): Rng {
  const next = mulberry32(seed);
  const int = (n: number) => Math.floor(next() * n);
  return {
    int,
    pick: (items) => items[int(items.length)]!,
    chance: (p) => next() < p,
    hex: (digits) => Array.from({ length: digits }, () => "0123456789abcdef"[int(16)]).join(""),
  };
}

/** JSON text sent as is, for what a JS value cannot hold (1e400, a 400-digit number, deep nesting). */
export class Raw {
  constructor(readonly text: string) {}
}

/** In place of a value: the field is left out. */
export const MISSING = Symbol("missing");

export type Value = unknown;

/** JSON text of a value that may hold Raw pieces; MISSING keys are left out. */
export function toJson(v: Value): string {
  if (v instanceof Raw) return v.text;
  if (Array.isArray(v)) return `[${v.map(toJson).join(",")}]`;
  if (v && typeof v === "object") {
    const fields = Object.entries(v).filter(([, x]) => x !== MISSING).map(([k, x]) => `${JSON.stringify(k)}:${toJson(x)}`);
    return `{${fields.join(",")}}`;
  }
  return JSON.stringify(v);
}

/** Valid values by field name, where the name says more than the schema (a symbol the venue lists). */
export type Hints = Record<string, (rng: Rng) => Value>;

const ALNUM = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
const alnum = (rng: Rng, n: number) => Array.from({ length: n }, () => rng.pick([...ALNUM])).join("");

/** Every pattern the document uses, with a value it takes; a new one fails the fuzz until added. */
const PATTERNS: Record<string, (rng: Rng) => string> = {
  "^0x[0-9a-fA-F]{40}$": (rng) => `0x${rng.hex(40)}`,
  "^0x[0-9a-fA-F]{130}$": (rng) => `0x${rng.hex(128)}1b`,
  "^[A-Za-z0-9]{8,64}$": (rng) => alnum(rng, 8 + rng.int(20)),
  "^0x[0-9a-fA-F]{1,16}$": (rng) => `0x${rng.hex(1 + rng.int(8))}`,
  "^wh_[0-9a-f]{16}$": (rng) => `wh_${rng.hex(16)}`,
  "^\\d+(\\.\\d+)?$": (rng) => `${1 + rng.int(100)}.${rng.int(10)}`,
};

const types = (s: Schema): string[] => (Array.isArray(s.type) ? s.type : s.type ? [s.type] : []);

function validString(s: Schema, rng: Rng): string {
  if (s.pattern) {
    const make = PATTERNS[s.pattern];
    if (!make) throw new Error(`the fuzz has no value for the pattern ${s.pattern}: add one to PATTERNS`);
    return make(rng);
  }
  const min = s.minLength ?? 1;
  const max = Math.min(s.maxLength ?? 16, min + 12);
  return alnum(rng, min + rng.int(max - min + 1));
}

function validNumber(s: Schema, rng: Rng, integer: boolean): number {
  const low = s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : (s.minimum ?? 0);
  const high = Math.min(s.maximum ?? low + 1000, low + 1000);
  const n = low + rng.int(high - low + 1);
  return integer ? n : n + rng.int(100) / 100;
}

/** One value `s` takes: a hint for the field's name first, else from the schema. */
export function validValue(s: Schema, rng: Rng, hints: Hints, name = ""): Value {
  const hint = hints[name];
  if (hint) return hint(rng);
  if (s.const !== undefined) return s.const;
  if (s.enum) return rng.pick(s.enum);
  if (s.anyOf) return validValue(rng.pick(s.anyOf), rng, hints, name);
  const type = rng.pick(types(s).length ? types(s) : ["string"]);
  switch (type) {
    case "string": return validString(s, rng);
    case "integer": return validNumber(s, rng, true);
    case "number": return validNumber(s, rng, false);
    case "boolean": return rng.chance(0.5);
    case "array": {
      const n = (s.minItems ?? 0) + rng.int(Math.min(s.maxItems ?? 3, 3) - (s.minItems ?? 0) + 1);
      return Array.from({ length: n }, () => validValue(s.items ?? {}, rng, hints, `${name}[]`));
    }
    case "object": return validObject(s, rng, hints);
    default: return null;
  }
}

/** An object with every required field and some of the optional ones. */
export function validObject(s: Schema, rng: Rng, hints: Hints): Record<string, Value> {
  const out: Record<string, Value> = {};
  for (const [key, prop] of Object.entries(s.properties ?? {})) {
    if ((s.required ?? []).includes(key) || rng.chance(0.35)) out[key] = validValue(prop, rng, hints, key);
  }
  return out;
}

export interface Broken {
  label: string;
  value: Value;
}

const BIG_DIGITS = `1${"0".repeat(399)}`;
const UNICODE = ["ünïcødé", "💥🚀", "\u202e0x41", "\u0000", "\ud800", "𝟘𝕩𝟙𝟚", "İı", "\u200b"];
const HEX_BAD = (rng: Rng) => [`0x${rng.hex(39)}`, `0x${rng.hex(41)}`, `0x${"g".repeat(40)}`, rng.hex(40), `0X${rng.hex(40)}`, "0x", "0"];
const SIGNATURE_BAD = (rng: Rng) => [
  `0x${rng.hex(128)}1d`, `0x${"0".repeat(130)}`, `0x${"f".repeat(128)}1b`, `0x${rng.hex(128)}`, `0x${rng.hex(131)}`, `0x${"0".repeat(64)}${rng.hex(64)}1c`,
];
export const DATE_BAD = ["2026-02-30", "2026-13-01", "2026-11-01T25:00", "2026-11-01T10:60", "2026-11-01T10:00:00+24:00", "yesterday",
  "9999999999999", "-1", "2026-11-01T10:00:00.123456789Z", "+002026-11-01", "0000-00-00", "2026-1-1"];

/** Deep nesting as raw JSON text: `[[[...]]]` or `{"a":{"a":...}}`. */
export const nested = (depth: number, kind: "array" | "object") =>
  new Raw(kind === "array" ? `${"[".repeat(depth)}${"]".repeat(depth)}` : `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`);

/** The broken values to put in place of a body field of schema `s` (`valid` is a value it takes). */
export function brokenBodyValues(s: Schema, valid: Value, rng: Rng, required: boolean): Broken[] {
  const t = types(s);
  const out: Broken[] = [
    { label: "null", value: null }, { label: "true", value: true }, { label: "a string", value: "text" },
    { label: "an empty string", value: "" }, { label: "a huge string", value: "x".repeat(12_000) },
    { label: "unicode", value: rng.pick(UNICODE) }, { label: "an array", value: [valid] }, { label: "an object", value: { x: valid } },
    { label: "a number", value: 12 }, { label: "a 400-digit number", value: new Raw(BIG_DIGITS) },
    { label: "1e21", value: new Raw("1e21") }, { label: "1e400", value: new Raw("1e400") }, { label: "-1e-400", value: new Raw("-1e-400") },
    { label: "-1", value: -1 }, { label: "1.5", value: 1.5 }, { label: "-0", value: new Raw("-0") },
    { label: "2^53", value: new Raw("9007199254740993") }, { label: "deep nesting", value: nested(rng.pick([200, 2000, 5000]), rng.pick(["array", "object"] as const)) },
  ];
  if (required) out.push({ label: "missing", value: MISSING });
  if (t.includes("string") || s.pattern) {
    out.push(...HEX_BAD(rng).map((v) => ({ label: `malformed hex ${v.slice(0, 12)}`, value: v })));
    out.push(...SIGNATURE_BAD(rng).map((v) => ({ label: `a bad signature ${v.slice(-4)}`, value: v })));
    out.push({ label: "a bad date", value: rng.pick(DATE_BAD) }, { label: "a decimal string with junk", value: "1.2.3" });
    out.push({ label: "a decimal string of 400 digits", value: BIG_DIGITS }, { label: "a negative decimal string", value: "-5" });
  }
  if (t.includes("object") || s.properties) {
    out.push({ label: "an extra field", value: { ...(valid as object), zzz: 1 } }, { label: "an empty object", value: {} });
  }
  if (t.includes("array")) out.push({ label: "an empty array", value: [] }, { label: "a long array", value: Array.from({ length: 500 }, () => valid) });
  return out;
}

/** The broken texts to put in place of a query or path parameter. */
export function brokenTexts(rng: Rng, where: "query" | "path"): Array<{ label: string; text: string; encoded?: boolean }> {
  const huge = where === "path" ? 3_000 : 6_000; // a URL past Node's 16 KiB header limit never reaches the daemon
  return [
    { label: "empty", text: "" }, { label: "huge", text: "9".repeat(huge) }, { label: "unicode", text: rng.pick(UNICODE.filter((u) => u !== "\ud800")) },
    { label: "-1", text: "-1" }, { label: "1.5", text: "1.5" }, { label: "1e21", text: "1e21" }, { label: "400 digits", text: BIG_DIGITS },
    { label: "letters", text: "abc" }, { label: "null", text: "null" }, { label: "0", text: "0" }, { label: "2^53", text: "9007199254740993" },
    { label: "malformed hex", text: rng.pick(HEX_BAD(rng)) }, { label: "a bad date", text: rng.pick(DATE_BAD) },
    { label: "bad percent-encoding", text: rng.pick(["%zz", "%E0%A4%A", "%", "%00", "%C0%AF"]), encoded: true },
    { label: "an encoded slash", text: "a%2Fb", encoded: true }, { label: "dots", text: rng.pick(["..", ".", "%2e%2e"]), encoded: true },
  ];
}
