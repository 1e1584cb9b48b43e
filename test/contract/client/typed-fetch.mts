// A tiny typed fetch over the `paths` that openapi-typescript generates from /api/openapi.json: the
// path, its parameters, the body and every answer are typed from the document, nothing by hand. It is
// what a frontend would write (or take from openapi-fetch); the contract test typechecks it.
import type { paths } from "./api.mjs";

export type Method = "get" | "post" | "delete";
type Defined<T> = [T] extends [never] ? false : [T] extends [undefined] ? false : true;

/** The methods `P` serves. */
export type MethodOf<P extends keyof paths> = { [M in Method]: paths[P][M] extends { responses: unknown } ? M : never }[Method];
type Op<P extends keyof paths, M extends Method> = paths[P][M] extends infer O ? (O extends { responses: unknown } ? O : never) : never;

type PathParams<O> = O extends { parameters: { path?: infer X } } ? (Defined<X> extends true ? { params: NonNullable<X> } : {}) : {};
type Query<O> = O extends { parameters: { query?: infer X } } ? (Defined<X> extends true ? { query?: NonNullable<X> } : {}) : {};
type Body<O> = O extends { requestBody: { content: { "application/json": infer B } } } ? { body: B } : {};
export type Init<O> = PathParams<O> & Query<O> & Body<O> & { token?: string; headers?: Record<string, string> };

type JsonOf<R> = R extends { content: { "application/json": infer B } } ? B
  : R extends { content: { "text/event-stream": infer S } } ? S : never;
type Responses<O> = O extends { responses: infer R } ? R : never;
/** The body of the success answer (200). */
export type Success<O> = JsonOf<Responses<O>[200 & keyof Responses<O>]>;
/** The body of any failure the operation documents (the error envelope with that operation's codes). */
export type Failure<O> = { [S in keyof Responses<O>]: S extends 200 ? never : JsonOf<Responses<O>[S]> }[keyof Responses<O>];

export type Answer<O> = { ok: true; status: 200; body: Success<O> } | { ok: false; status: number; body: Failure<O> };

export function client(base: string) {
  return async function call<P extends keyof paths, M extends MethodOf<P>>(
    method: M, path: P, init: Init<Op<P, M>>,
  ): Promise<Answer<Op<P, M>>> {
    const i = init as { params?: Record<string, unknown>; query?: Record<string, unknown>; body?: unknown; token?: string; headers?: Record<string, string> };
    const url = new URL(String(path).replace(/\{(\w+)\}/g, (_, k: string) => encodeURIComponent(String(i.params?.[k]))), base);
    for (const [k, v] of Object.entries(i.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    const res = await fetch(url, {
      method: method.toUpperCase(),
      headers: {
        ...(i.body === undefined ? {} : { "Content-Type": "application/json" }),
        ...(i.token ? { Authorization: `Bearer ${i.token}` } : {}),
        ...i.headers,
      },
      body: i.body === undefined ? undefined : JSON.stringify(i.body),
    });
    const type = res.headers.get("content-type") ?? "";
    const body = type.startsWith("application/json") ? await res.json() : await res.text();
    return (res.status === 200 ? { ok: true, status: 200, body } : { ok: false, status: res.status, body }) as Answer<Op<P, M>>;
  };
}

/** The `data` of a success envelope; a failure throws its code and message. */
export function data<T extends { ok: true; data: unknown }, F extends { ok: false; error: { code: string; message: string } }>(
  a: { ok: true; body: T } | { ok: false; status: number; body: F },
): T["data"] {
  if (!a.ok) throw new Error(`${a.body.error.code}: ${a.body.error.message}`);
  return a.body.data;
}

type Strict<T> = 0 extends 1 & T ? false : [T] extends [never] ? false : unknown extends T ? false : true;
/** Compiles only when `value` has a real type: not any, never or unknown (what an undocumented answer gives). */
export function use<T>(value: T, ..._typed: Strict<T> extends true ? [] : ["this field is not typed by the document"]): T {
  return value;
}
