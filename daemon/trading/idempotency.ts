// One request per Idempotency-Key at a time in this process, and a replay for a key already used.
// The first request to arrive is registered before its first await, so one with the same key that
// arrives while it runs (a retry, or a duplicate sent at once) waits for it and then answers from its
// row: the same answer. Without a row (the first failed before storing one), the waiting request goes
// itself. A row from an earlier run or another daemon answers at once; `same` tells it is the same
// request. The order desk runs the whole request inside, so a replay answers before any check; the
// order's insert checks the key again in its transaction, which settles a race between daemons.
import type { Executor } from "../db/store.js";
import * as orders from "../db/orders-repo.js";
import type { OrderRow } from "../db/schema.js";
import { AppError } from "../errors.js";
import { outcomeOf, STILL_IN_FLIGHT, type TradeResult } from "./trading-service.js";

export function createIdempotency(deps: { db: Executor; /** How long a retry waits for the first request, still in flight. */ inFlightWaitMs?: number }) {
  const inFlightWaitMs = deps.inFlightWaitMs ?? 10_000;
  /** Requests still talking to the exchange, by user and Idempotency-Key. */
  const inFlight = new Map<string, Promise<unknown>>();

  /** Waits for a request in flight; CONFLICT when it takes longer than inFlightWaitMs. */
  async function waitFor(first: Promise<unknown>): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const waited = await Promise.race([
      first.then(() => true, () => true),
      new Promise<false>((r) => (timer = setTimeout(() => r(false), inFlightWaitMs))),
    ]);
    clearTimeout(timer);
    if (!waited) throw new AppError("CONFLICT", STILL_IN_FLIGHT, { retryAfter: 1 });
  }

  async function once(user: string, key: string | undefined, same: (row: OrderRow) => boolean, attempt: () => Promise<TradeResult>): Promise<TradeResult> {
    if (!key) return attempt();
    const id = `${user}\n${key}`;
    const running = inFlight.get(id);
    if (running) {
      await waitFor(running);
      return once(user, key, same, attempt);
    }
    const p = (async () => {
      const seen = await orders.findByIdempotencyKey(deps.db, user, key);
      if (!seen) return attempt();
      if (!same(seen)) throw new AppError("CONFLICT", "this Idempotency-Key was used for a different request");
      return outcomeOf(seen);
    })();
    inFlight.set(id, p);
    const done = () => void (inFlight.get(id) === p && inFlight.delete(id));
    p.then(done, done);
    return p;
  }

  return { once };
}

export type Idempotency = ReturnType<typeof createIdempotency>;
