// What a route's handler may answer, as types: the input type of its response schema, with no field
// the schema does not declare (at any depth), or that same value serialized ahead (Prerendered). A
// handler whose answer drifts from its schema is a compile error, not a failing contract test;
// test/http/route-contract.typecheck.ts keeps it so (`npm run typecheck` compiles it).
import type { z } from "zod";

/**
 * A success envelope serialized ahead of time, for a handler whose `data` is unchanged across many
 * requests: it is sent as is, so neither JSON.stringify nor UTF-8 encoding runs per request. `T` is
 * the data it was made from, so a pre-rendered answer is checked against the schema like any other.
 */
export class Prerendered<T = unknown> {
  /** Type only: what was rendered (nothing is kept at run time but the bytes). */
  declare private readonly rendered: T;
  readonly bytes: Buffer;
  constructor(data: T) {
    this.bytes = Buffer.from(JSON.stringify({ ok: true, data }));
  }
}

type Primitive = string | number | bigint | boolean | symbol | null | undefined;

/**
 * `T` read-only at every depth: what a handler gives is only serialized, so a read-only list (the
 * service's cached one) answers as well as a fresh one, and defineRoute can infer an answer's literal
 * types (`status: "filled"`) without `as const` (its `const` type parameter infers read-only arrays).
 */
export type Frozen<T> = T extends Primitive
  ? T
  : T extends readonly (infer E)[]
    ? readonly Frozen<E>[]
    : { readonly [K in keyof T]: Frozen<T[K]> };

/**
 * `T` with each field that `S` does not declare typed `never`, at any depth: a value of type `T` is
 * assignable to `Exact<T, S>` only when it has no field the schema lacks. (TypeScript checks excess
 * fields only on a fresh object literal, and a handler's answer is rarely one: it spreads a service's
 * view, or is built by a render helper.) Unions in `S` are matched member by member, so a
 * discriminated union (vault events) is checked against the member `T` belongs to.
 */
export type Exact<T, S> = unknown extends S
  ? T // z.unknown(): any shape is documented
  : T extends Primitive
    ? T
    : T extends readonly (infer E)[]
      ? S extends readonly (infer F)[]
        ? readonly Exact<E, F>[]
        : never
      : T extends object
        ? S extends unknown
          ? T extends Frozen<S>
            ? { [K in keyof T]: K extends keyof S ? Exact<T[K], S[K]> : never }
            : never
          : never
        : T;

/** What the response schema `R` documents a handler may answer: its input type, or that pre-rendered. */
export type Answer<R extends z.ZodType> = Frozen<z.input<R>> | Prerendered<Frozen<z.input<R>>>;

/** The answer `A` a handler gave, with the fields `R` lacks typed `never` (see Exact). */
export type Checked<A, R extends z.ZodType> = A extends Prerendered<infer D> ? Prerendered<Exact<D, z.input<R>>> : Exact<A, z.input<R>>;
