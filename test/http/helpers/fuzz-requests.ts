// The requests of the route fuzz, built from the daemon's OpenAPI document: for each operation, valid
// requests, then each path parameter, query parameter and body field broken in turn (the others
// valid), then the whole body broken (too large, not JSON, another media type, an odd encoding), then
// the request's credentials and headers. Only the document and the seed decide what is sent.
import { gzipSync } from "node:zlib";
import {
  Raw, brokenBodyValues, brokenTexts, nested, toJson, validObject, validValue, type Hints, type Rng, type Schema, type Value,
} from "./fuzz-values.js";

/** Who a request is sent as: one of the world's signed-in users, nobody, or a bad credential. */
export type Caller = "ivy" | "tom" | "none" | "bad-bearer" | "bad-cookie" | "odd-authorization";

export interface FuzzRequest {
  /** The operation it was made for, as the document names it ("POST /api/trade"). */
  op: string;
  /** What is broken in it ("body.size: 1e400"), or "valid". */
  what: string;
  method: string;
  /** Path and query, encoded. */
  url: string;
  caller: Caller;
  headers: Record<string, string>;
  body?: string | Uint8Array;
  /** Sent chunked (no Content-Length), from a stream. */
  chunked?: boolean;
  /** Written to a socket as is, in place of the request above: what Node's HTTP parser refuses. */
  wire?: string;
}

interface Parameter {
  name: string;
  in: "path" | "query";
  required: boolean;
  schema: Schema;
}

export interface Operation {
  method: string;
  /** The document's path, `{name}` for a parameter. */
  path: string;
  auth: boolean;
  parameters: Parameter[];
  body?: Schema;
}

/** The operations of an OpenAPI document, in its order. */
export function operationsOf(doc: any): Operation[] {
  return Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, o]) => ({
      method: method.toUpperCase(), path, auth: (o.security as unknown[]).length > 0,
      // The client header only chooses the words of a refusal: what the fuzz breaks is the request's input.
      parameters: (o.parameters as Array<{ in: string }>).filter((p) => p.in === "path" || p.in === "query") as Parameter[], body: o.requestBody?.content?.["application/json"]?.schema as Schema | undefined,
    })));
}

/** The valid values of one request: path and query parameters (text) and the body. */
interface Parts {
  path: Record<string, string>;
  query: Array<[string, string]>;
  body: Value;
}

const isWrite = (op: Operation) => op.method !== "GET";

function validParts(op: Operation, rng: Rng, hints: Hints): Parts {
  const path: Record<string, string> = {};
  const query: Array<[string, string]> = [];
  for (const p of op.parameters) {
    if (p.in === "query" && !p.required && !rng.chance(0.4)) continue;
    const text = String(validValue(p.schema, rng, hints, p.name));
    if (p.in === "path") path[p.name] = text;
    else query.push([p.name, text]);
  }
  return { path, query, body: op.body ? validObject(op.body, rng, hints) : undefined };
}

function urlOf(op: Operation, path: Record<string, string>, query: Array<[string, string]>, raw = new Set<string>()): string {
  const at = op.path.replace(/\{([^}]+)\}/g, (_, name: string) => (raw.has(name) ? path[name]! : encodeURIComponent(path[name]!)));
  const q = query.map(([k, v]) => `${encodeURIComponent(k)}=${raw.has(`?${k}`) ? v : encodeURIComponent(v)}`).join("&");
  return q ? `${at}?${q}` : at;
}

const JSON_TYPE = { "Content-Type": "application/json" };

/** The request of `parts`, as `caller`, with `what` naming what is broken. */
function request(op: Operation, parts: Parts, caller: Caller, what: string, extra: Partial<FuzzRequest> = {}, raw?: Set<string>): FuzzRequest {
  const body = parts.body === undefined ? undefined : toJson(parts.body);
  return {
    op: `${op.method} ${op.path}`, what, method: op.method, url: urlOf(op, parts.path, parts.query, raw), caller,
    headers: body === undefined ? {} : { ...JSON_TYPE }, body, ...extra,
  };
}

/** `body` with the field at `path` replaced by `value` (MISSING: left out). */
function withField(body: Value, path: string[], value: Value): Value {
  if (path.length === 0) return value;
  const [head, ...rest] = path;
  const obj = body && typeof body === "object" && !(body instanceof Raw) ? (body as Record<string, Value>) : {};
  return { ...obj, [head!]: withField(obj[head!], rest, value) };
}

/** Every body field (nested objects' fields too), with its schema and whether it is required. */
function fieldsOf(s: Schema, at: string[] = []): Array<{ path: string[]; schema: Schema; required: boolean }> {
  return Object.entries(s.properties ?? {}).flatMap(([key, prop]) => [
    { path: [...at, key], schema: prop, required: (s.required ?? []).includes(key) },
    ...(prop.properties ? fieldsOf(prop, [...at, key]) : []),
  ]);
}

function brokenFields(op: Operation, rng: Rng, hints: Hints, caller: () => Caller): FuzzRequest[] {
  const out: FuzzRequest[] = [];
  for (const p of op.parameters) {
    for (const b of brokenTexts(rng, p.in)) {
      const parts = validParts(op, rng, hints);
      if (p.in === "path") parts.path[p.name] = b.text;
      else parts.query = [...parts.query.filter(([k]) => k !== p.name), [p.name, b.text]];
      out.push(request(op, parts, caller(), `${p.in}.${p.name}: ${b.label}`, {}, b.encoded ? new Set([p.name, `?${p.name}`]) : undefined));
    }
    if (p.in === "query") {
      const parts = validParts(op, rng, hints);
      const v = String(validValue(p.schema, rng, hints, p.name));
      parts.query = [...parts.query.filter(([k]) => k !== p.name), [p.name, v], [p.name, v]];
      out.push(request(op, parts, caller(), `query.${p.name}: repeated`));
    }
  }
  if (op.body) {
    for (const f of fieldsOf(op.body)) {
      for (const b of brokenBodyValues(f.schema, validValue(f.schema, rng, hints, f.path.at(-1)), rng, f.required)) {
        const parts = validParts(op, rng, hints);
        parts.body = withField(parts.body, f.path, b.value);
        out.push(request(op, parts, caller(), `body.${f.path.join(".")}: ${b.label}`));
      }
    }
  }
  return out;
}

/** A 17 KiB body: past the 16 KiB limit. */
const OVERSIZE = JSON.stringify({ pad: "x".repeat(17 * 1024) });

/** Whole bodies that are not what any route takes, each with the headers it is sent with. */
function brokenBodies(valid: string, rng: Rng): Array<{ label: string; headers: Record<string, string>; body: string | Uint8Array; chunked?: boolean }> {
  const json = (label: string, body: string) => ({ label, headers: { ...JSON_TYPE }, body });
  const manyKeys = `{${Array.from({ length: 1500 }, (_, i) => `"k${i}":${i}`).join(",")}}`;
  return [
    json("too large", OVERSIZE), { label: "too large, chunked", headers: { ...JSON_TYPE }, body: OVERSIZE, chunked: true },
    { label: "chunked", headers: { ...JSON_TYPE }, body: valid, chunked: true },
    { label: "text/plain", headers: { "Content-Type": "text/plain" }, body: valid },
    { label: "a form", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: "a=1&b=2" },
    { label: "multipart", headers: { "Content-Type": "multipart/form-data; boundary=x" }, body: "--x\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n1\r\n--x--" },
    { label: "no content type", headers: {}, body: new TextEncoder().encode(valid) },
    { label: "a JSON look-alike type", headers: { "Content-Type": "application/jsonx" }, body: valid },
    { label: "another charset", headers: { "Content-Type": "application/json; charset=utf-16" }, body: valid },
    json("empty", ""), json("truncated", valid.slice(0, Math.max(1, valid.length - 1))), json("not JSON", rng.pick(["{", '{"a":}', "nul", "[1,]", "{} x", "'a'"])),
    json("a string", '"text"'), json("a number", "1"), json("null", "null"), json("an array", "[]"), json("an array of the body", `[${valid}]`),
    json("a byte-order mark", `\ufeff${valid}`), json("a repeated key", valid.replace(/^\{/, '{"zzz":1,"zzz":2,')),
    json("__proto__", valid.replace(/^\{/, '{"__proto__":{"polluted":true},')), json("constructor", '{"constructor":{"prototype":{"x":1}}}'),
    json("1500 keys", manyKeys), json("nested arrays", nested(6000, "array").text), json("nested objects", nested(2500, "object").text),
    json("a lone surrogate", valid.replace(/^\{/, '{"\\ud800":1,')),
    { label: "gzip garbage", headers: { ...JSON_TYPE, "Content-Encoding": "gzip" }, body: new TextEncoder().encode("not gzip at all") },
    { label: "gzip", headers: { ...JSON_TYPE, "Content-Encoding": "gzip" }, body: new Uint8Array(gzipSync(valid)) },
    { label: "a gzip bomb", headers: { ...JSON_TYPE, "Content-Encoding": "gzip" }, body: new Uint8Array(gzipSync(`{"pad":"${"x".repeat(2_000_000)}"}`)) },
    { label: "an unknown encoding", headers: { ...JSON_TYPE, "Content-Encoding": "zstd" }, body: valid },
  ];
}

/**
 * Requests Node's parser refuses before any route: too long a URL or header, lines that are not HTTP.
 * (A body whose chunked framing breaks after the headers is not among them: the route has begun to
 * answer, and Node drops the connection, as it must when the framing is lost.)
 */
function brokenWire(op: Operation, parts: Parts, rng: Rng): FuzzRequest[] {
  const base = request(op, parts, "none", "");
  const line = (url: string) => `${op.method} ${url} HTTP/1.1\r\nHost: 127.0.0.1\r\n`;
  const wire = (what: string, text: string): FuzzRequest => ({ ...base, what: `wire: ${what}`, wire: text });
  return [
    wire("a URL past 16 KiB", `${line(`${base.url}${base.url.includes("?") ? "&" : "?"}pad=${"x".repeat(17_000)}`)}\r\n`),
    wire("a header past 16 KiB", `${line(base.url)}X-Pad: ${"y".repeat(17_000)}\r\n\r\n`),
    wire("a header line without a colon", `${line(base.url)}Not A Header\r\n\r\n`),
    wire("Content-Length and chunked at once", `${line(base.url)}Content-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`),
    wire("a request line that is not HTTP", `${rng.pick(["GARBAGE", `${op.method} ${base.url} HTTP/9.9`, `${op.method}  ${base.url}`])}\r\n\r\n`),
  ];
}

/** What every operation is sent: valid, each field broken, the body broken, the credentials and headers. */
export function requestsFor(op: Operation, rng: Rng, hints: Hints): FuzzRequest[] {
  const signedIn = (): Caller => (rng.chance(0.5) ? "ivy" : "tom");
  const out: FuzzRequest[] = [];
  for (let i = 0; i < 3; i++) out.push(request(op, validParts(op, rng, hints), signedIn(), "valid"));
  for (const caller of ["none", "bad-bearer", "bad-cookie", "odd-authorization"] as const) out.push(request(op, validParts(op, rng, hints), caller, "valid"));
  out.push(...brokenFields(op, rng, hints, signedIn));
  const unknown = validParts(op, rng, hints);
  unknown.query.push(["zzz", "1"]);
  out.push(request(op, unknown, signedIn(), "query: an unknown parameter"));
  out.push(...brokenWire(op, validParts(op, rng, hints), rng));
  if (isWrite(op)) {
    const parts = validParts(op, rng, hints);
    const valid = parts.body === undefined ? "{}" : toJson(parts.body);
    for (const b of brokenBodies(valid, rng)) {
      out.push({ ...request(op, { ...parts, body: undefined }, signedIn(), `body: ${b.label}`), headers: b.headers, body: b.body, chunked: b.chunked });
    }
    if (!op.body) out.push(request(op, { ...parts, body: {} }, signedIn(), "body: {}"), request(op, { ...parts, body: { zzz: 1 } }, signedIn(), "body: a field where none is taken"));
    out.push(request(op, parts, signedIn(), "header: a foreign Origin", { headers: { ...(parts.body ? JSON_TYPE : {}), Origin: "https://evil.example" } }));
    out.push(request(op, parts, signedIn(), "header: an odd Idempotency-Key", { headers: { ...(parts.body ? JSON_TYPE : {}), "Idempotency-Key": rng.pick(["", " ", "k".repeat(4000), "\u00ff\u00fe"]) } }));
  } else {
    for (const accept of ["text/csv", "text/csv;q=0.1, application/json", "application/xml", "*/*;q=bad", "text/event-stream"]) {
      out.push(request(op, validParts(op, rng, hints), signedIn(), `header: Accept ${accept}`, { headers: { Accept: accept } }));
    }
  }
  return out;
}
