// The sim's test controls over HTTP (loopback only, checked by the server): POST /sim/faucet
// {user, amount}, POST /sim/price {symbol, price} and POST /sim/abstraction {user, abstraction} (what
// userAbstraction reports). They parse the body and delegate to the same
// methods the programmatic API exposes.
import { z } from "zod";
import type { ControlResult } from "./server.js";

export interface ControlTarget {
  faucet(user: string, amount: string | number): Promise<unknown>;
  setPrice(symbol: string, price: string | number): unknown;
  setAbstraction(user: string, mode: string): unknown;
}

/** Raised by faucet/setPrice for input the caller got wrong (HTTP 400). */
export class ControlInputError extends Error {}

/** Raised when the onFaucet hook failed; nothing was credited (HTTP 502). */
export class FaucetHookError extends Error {}

const Amount = z.union([z.number(), z.string()]);
const FaucetBody = z.object({ user: z.string(), amount: Amount });
const PriceBody = z.object({ symbol: z.string(), price: Amount });
const AbstractionBody = z.object({ user: z.string(), abstraction: z.string() });

export async function handleControl(target: ControlTarget, path: string, body: unknown): Promise<ControlResult> {
  try {
    if (path === "/sim/faucet") {
      const b = FaucetBody.safeParse(body);
      if (!b.success) return { status: 400, json: { ok: false, error: "expected {user, amount}" } };
      return { status: 200, json: { ok: true, ...(await target.faucet(b.data.user, b.data.amount) as object) } };
    }
    if (path === "/sim/price") {
      const b = PriceBody.safeParse(body);
      if (!b.success) return { status: 400, json: { ok: false, error: "expected {symbol, price}" } };
      return { status: 200, json: { ok: true, ...(target.setPrice(b.data.symbol, b.data.price) as object) } };
    }
    if (path === "/sim/abstraction") {
      const b = AbstractionBody.safeParse(body);
      if (!b.success) return { status: 400, json: { ok: false, error: "expected {user, abstraction}" } };
      return { status: 200, json: { ok: true, ...(target.setAbstraction(b.data.user, b.data.abstraction) as object) } };
    }
    return { status: 404, json: { ok: false, error: `unknown control ${path}` } };
  } catch (e) {
    if (e instanceof ControlInputError) return { status: 400, json: { ok: false, error: e.message } };
    if (e instanceof FaucetHookError) return { status: 502, json: { ok: false, error: e.message } };
    throw e;
  }
}
