// The sim's test controls over HTTP (loopback only, checked by the server): POST /sim/faucet
// {user, amount}, POST /sim/withdraw {user, amount}, POST /sim/price {symbol, price}, POST /sim/adl
// {user, symbol, size?} (auto-deleverages a position at the mark), POST /sim/abstraction {user,
// abstraction} (what userAbstraction reports), /sim/faults (GET lists, POST queues, DELETE clears
// the fault queue) and GET /sim/weight[?user=0x...] (request weight counted).
// They parse the body and delegate to the same methods the programmatic API exposes.
import { z } from "zod";
import { FaultSpecError } from "./fault-spec.js";
import type { FaultQueue, FaultSpec } from "./faults.js";
import type { ControlResult } from "./server.js";
import type { UserWeight, WeightTotals } from "./weights.js";

export interface ControlTarget {
  faucet(user: string, amount: string | number): Promise<unknown>;
  withdraw(user: string, amount: string | number): unknown;
  setPrice(symbol: string, price: string | number): unknown;
  deleverage(user: string, symbol: string, size?: string | number): unknown;
  setAbstraction(user: string, mode: string): unknown;
  /** Every request's weight without a user; one user's with one. */
  weight(user?: string): WeightTotals | UserWeight;
  faults: Pick<FaultQueue, "next" | "pending" | "clear">;
}

/** Raised by faucet/withdraw/setPrice for input the caller got wrong (HTTP 400). */
export class ControlInputError extends Error {}

/** Raised when the onFaucet hook failed; nothing was credited (HTTP 502). */
export class FaucetHookError extends Error {}

const Amount = z.union([z.number(), z.string()]);
const MoneyBody = z.object({ user: z.string(), amount: Amount });
const PriceBody = z.object({ symbol: z.string(), price: Amount });
const AbstractionBody = z.object({ user: z.string(), abstraction: z.string() });
const AdlBody = z.object({ user: z.string(), symbol: z.string(), size: Amount.optional() });

const refused = (status: number, error: string, details?: unknown): ControlResult =>
  ({ status, json: { ok: false, error, ...(details ? { details } : {}) } });

const UserParam = z.string().regex(/^0[xX][0-9a-fA-F]{40}$/);

/** `method` comes last (default POST) so callers that relay POST controls need not name it. */
export async function handleControl(
  target: ControlTarget, path: string, body: unknown, method = "POST", query = new URLSearchParams(),
): Promise<ControlResult> {
  try {
    if (path === "/sim/faults") return faultControl(target.faults, method, body);
    if (path === "/sim/weight") return weightControl(target, method, query);
    if (!["/sim/faucet", "/sim/withdraw", "/sim/price", "/sim/adl", "/sim/abstraction"].includes(path)) return refused(404, `unknown control ${path}`);
    if (method !== "POST") return refused(405, `${path} takes POST`);
    if (path === "/sim/faucet" || path === "/sim/withdraw") {
      const b = MoneyBody.safeParse(body);
      if (!b.success) return refused(400, "expected {user, amount}");
      const done = path === "/sim/faucet" ? await target.faucet(b.data.user, b.data.amount) : target.withdraw(b.data.user, b.data.amount);
      return { status: 200, json: { ok: true, ...(done as object) } };
    }
    if (path === "/sim/price") {
      const b = PriceBody.safeParse(body);
      if (!b.success) return refused(400, "expected {symbol, price}");
      return { status: 200, json: { ok: true, ...(target.setPrice(b.data.symbol, b.data.price) as object) } };
    }
    if (path === "/sim/adl") {
      const b = AdlBody.safeParse(body);
      if (!b.success) return refused(400, "expected {user, symbol, size?}");
      return { status: 200, json: { ok: true, ...(target.deleverage(b.data.user, b.data.symbol, b.data.size) as object) } };
    }
    const b = AbstractionBody.safeParse(body);
    if (!b.success) return refused(400, "expected {user, abstraction}");
    return { status: 200, json: { ok: true, ...(target.setAbstraction(b.data.user, b.data.abstraction) as object) } };
  } catch (e) {
    if (e instanceof ControlInputError) return refused(400, e.message);
    if (e instanceof FaucetHookError) return refused(502, e.message);
    throw e;
  }
}

function weightControl(target: ControlTarget, method: string, query: URLSearchParams): ControlResult {
  if (method !== "GET") return refused(405, "/sim/weight takes GET");
  const user = query.get("user");
  if (user === null) return { status: 200, json: { ok: true, ...target.weight() } };
  if (!UserParam.safeParse(user).success) return refused(400, "user must be a 0x-prefixed 20-byte hex address");
  return { status: 200, json: { ok: true, ...target.weight(user) } };
}

/** Every answer carries the queue as it is after the request. */
function faultControl(faults: ControlTarget["faults"], method: string, body: unknown): ControlResult {
  if (method === "DELETE") faults.clear();
  else if (method === "POST") {
    try {
      faults.next(body as FaultSpec); // checked inside: anything else is refused with FaultSpecError
    } catch (e) {
      if (e instanceof FaultSpecError) return refused(400, e.message, e.problems);
      throw e;
    }
  } else if (method !== "GET") return refused(405, "/sim/faults takes GET, POST or DELETE");
  return { status: 200, json: { ok: true, pending: faults.pending() } };
}
