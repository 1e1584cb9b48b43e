// The embedded sim's test controls for signed-in users (paper trading only): the faucet credits the
// caller's own account, and price moves the sim's mark. A browser page cannot reach the sim's own
// loopback port (its CSP allows only this origin), so the daemon relays to the same control handler
// the CLI reaches directly. Mounted only when the daemon runs the embedded sim.
import { z } from "zod";
import { AppError } from "../../errors.js";
import { handleControl, type ControlTarget } from "../../sim/controls.js";
import * as R from "../responses.js";
import { defineRoute } from "../route.js";
import { decimalField } from "../schemas.js";

const amount = decimalField(z.union([z.number().positive(), z.string().regex(/^\d+(\.\d+)?$/, "must be a positive decimal")]));

async function relay(sim: ControlTarget, path: string, body: unknown) {
  const r = await handleControl(sim, path, body);
  const json = r.json as { ok?: boolean; error?: string } & Record<string, unknown>;
  if (r.status === 400) throw new AppError("INVALID_INPUT", `the sim refused: ${json.error ?? "bad input"}`);
  if (r.status !== 200) throw new AppError("EXCHANGE_UNAVAILABLE", `the sim failed: ${json.error ?? r.status}`);
  const { ok: _ok, ...rest } = json;
  return rest;
}

export function simRoutes(sim: ControlTarget) {
  return [
    defineRoute({
      method: "post", path: "/api/sim/faucet", tag: "sim", auth: true,
      summary: "Sim only: credit test USDC to your own sim account (and the chain's test token)",
      body: z.object({ amount }).strict(),
      response: R.simFaucet,
      errors: ["INVALID_INPUT", "UNAUTHENTICATED", "EXCHANGE_UNAVAILABLE"],
      handler: ({ body, user }) => relay(sim, "/sim/faucet", { user: user.address, amount: body.amount }),
    }),
    defineRoute({
      method: "post", path: "/api/sim/price", tag: "sim", auth: true,
      summary: "Sim only: set a coin's mark price (resting orders that cross it fill)",
      body: z.object({ symbol: z.string().min(1).max(32), price: amount }).strict(),
      response: R.simPrice,
      errors: ["INVALID_INPUT", "UNAUTHENTICATED", "EXCHANGE_UNAVAILABLE"],
      handler: ({ body }) => relay(sim, "/sim/price", { symbol: body.symbol.toUpperCase(), price: body.price }),
    }),
  ];
}
