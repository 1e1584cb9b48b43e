// Every route and method GET /api/openapi.json lists, fuzzed: valid requests, each parameter and body
// field broken in turn (wrong types, null, missing, extra fields, empty and huge strings, 400-digit
// numbers, 1e21 and 1e400 as raw JSON, negatives and fractions for integers, malformed hex, addresses
// and signatures, impossible dates, unicode, deep nesting), whole bodies broken (too large, not JSON,
// other media types and encodings) and bad credentials, signed in and not. No answer may be a 5xx,
// leave the envelope where the document promises it, carry a status its code does not have, or make
// the daemon log at error level. The seed is FUZZ_SEED (default below); a failure prints it with each
// request that failed. Requests go one at a time: each log line belongs to the request that caused it.
// FUZZ_VERBOSE=1 prints the statuses each operation answered; FUZZ_VERBOSE=2 also every valid request.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { checkAnswer, describe, send, type Finding } from "./helpers/fuzz-check.js";
import { operationsOf, requestsFor, type FuzzRequest } from "./helpers/fuzz-requests.js";
import { seededRng } from "./helpers/fuzz-values.js";
import { fuzzWorld, type World } from "./helpers/fuzz-world.js";

const DEFAULT_SEED = 20261201;
const seed = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : DEFAULT_SEED;

/** How many answers of each status each operation gave (FUZZ_VERBOSE). */
const statuses = new Map<string, number>();

/** Sends one request and returns what was wrong with it, if anything. */
async function probe(w: World, doc: unknown, r: FuzzRequest): Promise<Finding | undefined> {
  const logged = w.errors.length;
  let answer;
  try {
    answer = await send(w, r);
  } catch (err) {
    // A contract violation (test/helpers/contract.ts) or a connection the daemon dropped.
    return { request: r, problem: `the request failed: ${String(err).slice(0, 600)}` };
  }
  const key = `${r.op} ${answer.status}`;
  statuses.set(key, (statuses.get(key) ?? 0) + 1);
  if (process.env.FUZZ_VERBOSE === "2" && r.what === "valid") console.log(r.op, r.caller, r.body ?? "", "->", answer.status, answer.text.slice(0, 200));
  const problem = checkAnswer(doc, r, answer);
  if (problem) return { request: r, problem, answer };
  if (w.errors.length > logged) return { request: r, problem: `the daemon logged at error level: ${w.errors.slice(logged).join(" | ").slice(0, 600)}`, answer };
  // The one route that ends the session it is sent with: sign the party in again for the rest.
  if (r.op === "POST /api/auth/logout" && answer.status === 200 && (r.caller === "ivy" || r.caller === "tom")) await w.refresh(r.caller);
  return undefined;
}

test(`every route answers bad input in the envelope, never 5xx (seed ${seed})`, async () => {
  if (!Number.isSafeInteger(seed)) throw new Error(`FUZZ_SEED must be an integer, got ${process.env.FUZZ_SEED}`);
  const w = await fuzzWorld();
  try {
    const doc = (await w.d.http.get("/api/openapi.json")).body;
    const rng = seededRng(seed);
    // Deletions last, so that what they delete is there for every other operation.
    const ops = operationsOf(doc).sort((a, b) => Number(a.method === "DELETE") - Number(b.method === "DELETE"));
    const requests = ops.flatMap((op) => requestsFor(op, rng, w.hints(`${op.method} ${op.path}`)));
    const findings: Finding[] = [];
    for (const r of requests) {
      const f = await probe(w, doc, r);
      if (f) findings.push(f);
    }
    if (process.env.FUZZ_VERBOSE) console.log(`fuzz: ${requests.length} requests over ${ops.length} operations, seed ${seed}\n${[...statuses].map(([k, n]) => `${k}: ${n}`).join("\n")}`);
    assert.ok(requests.length >= 2_500, `only ${requests.length} requests`);
    assert.ok(findings.length === 0,
      `${findings.length} of ${requests.length} fuzz requests failed (seed ${seed}; run again with FUZZ_SEED=${seed}):\n` +
      findings.slice(0, 25).map(describe).join("\n"));
    // A line logged after its request was answered (a background task it started) counts too.
    assert.equal(w.errors, [], `the daemon logged at error level (seed ${seed})`);
  } finally {
    await w.close();
  }
});

test.run();
