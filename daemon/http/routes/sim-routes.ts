// The embedded sim's paper controls for signed-in users: the faucet credits the caller's own account
// (capped per UTC day), price moves the sim's mark (who may: --sim-controls; how far: bounded), and
// adl auto-deleverages a position (who may: as for price).
// A browser page cannot reach the sim's own loopback port (its CSP allows only this origin), so the
// daemon offers them here. Mounted only when the daemon runs the embedded sim; the price and adl
// routes not at all under --sim-controls off.
import { z } from "zod";
import { OPERATOR_HEADER } from "../../paper/operator-token.js";
import type { PaperControls } from "../../paper/paper-controls.js";
import { checksummed } from "../render.js";
import * as R from "./sim-responses.js";
import { defineRoute, type RouteSpec } from "../route.js";
import { address, decimalField } from "../schemas.js";

const amount = decimalField(z.union([z.number().positive(), z.string().regex(/^\d+(\.\d+)?$/, "must be a positive decimal")]));

export function simRoutes(paper: PaperControls): RouteSpec[] {
  const faucet = defineRoute({
    method: "post", path: "/api/sim/faucet", tag: "sim", auth: true,
    summary: "Sim only: credit test USDC to your own sim account (and the chain's test token); at most 100000 USDC per account per UTC day",
    body: z.object({ amount }).strict(),
    response: R.simFaucet,
    errors: ["INVALID_INPUT", "UNAUTHENTICATED", "EXCHANGE_UNAVAILABLE"],
    handler: async ({ body, user }) => {
      // The sim's control answers are untyped JSON: checked here, where they become the API's answer.
      const credited = R.simFaucet.parse(await paper.faucet(user.address, body.amount));
      // The sim names accounts in lower case, as the venue does; the API answers EIP-55 everywhere.
      return { ...credited, user: checksummed(credited.user) };
    },
  });
  const price = defineRoute({
    method: "post", path: "/api/sim/price", tag: "sim", auth: true,
    summary:
      "Sim only: set a coin's mark price (resting orders that cross it fill); at most 20% from the mark per call, and within 0.1x to 10x " +
      `of its price at the daemon's start. Under --sim-controls operator, header ${OPERATOR_HEADER} must carry the operator token`,
    body: z.object({ symbol: z.string().min(1).max(32), price: amount }).strict(),
    response: R.simPrice,
    errors: ["INVALID_INPUT", "UNAUTHENTICATED", "FORBIDDEN", "EXCHANGE_UNAVAILABLE"],
    handler: async ({ body, ctx }) => R.simPrice.parse(await paper.setPrice(body.symbol.toUpperCase(), body.price, ctx.get(OPERATOR_HEADER) || undefined)),
  });
  const adl = defineRoute({
    method: "post", path: "/api/sim/adl", tag: "sim", auth: true,
    summary:
      "Sim only: auto-deleverage a position at the mark, as the exchange does against a profitable position when a liquidation leaves " +
      "another account below zero (the whole position without a size); your own account unless `user` names another. " +
      `Who may: as for /api/sim/price (header ${OPERATOR_HEADER} under --sim-controls operator)`,
    body: z.object({ symbol: z.string().min(1).max(32), size: amount.optional(), user: address.optional() }).strict(),
    response: R.simAdl,
    errors: ["INVALID_INPUT", "UNAUTHENTICATED", "FORBIDDEN", "EXCHANGE_UNAVAILABLE"],
    handler: async ({ body, user, ctx }) => {
      const done = R.simAdl.parse(await paper.deleverage(body.user ?? user.address, body.symbol.toUpperCase(), body.size, ctx.get(OPERATOR_HEADER) || undefined));
      return { ...done, user: checksummed(done.user) };
    },
  });
  return paper.mode === "off" ? [faucet] : [faucet, price, adl];
}
