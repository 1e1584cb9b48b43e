// SPEC 4.10-4.15 plus events and escrow funding: list, detail, trades, events, close, unpause,
// withdraw, fund/prepare, fund.
import { z } from "zod";
import { baseUnitsToUsdc } from "../../vaults/units.js";
import type { VaultExports } from "../../vaults/vault-exports.js";
import type { VaultService } from "../../vaults/vault-service.js";
import type { VaultSummary } from "../../vaults/vault-views.js";
import { Prerendered } from "../answer.js";
import { dateBound } from "../date-bound.js";
import { defineRoute } from "../route.js";
import { address, integerField, pagination, signature, usdcAmount as usdc } from "../schemas.js";
import { renderCloseResult, renderDetail, renderTrade, storedEvents } from "./vault-render.js";
import { eventsCsv, tradesCsv } from "./vault-csv.js";
import * as R from "./vault-responses.js";

const vaultParams = z.object({ address });
/** A page of rows in the dates, as JSON (SPEC) or, asked for explicitly, CSV (vault-csv.ts). */
const datedPage = pagination.extend({
  startDate: dateBound(false).optional(), endDate: dateBound(true).optional(),
  format: z.enum(["json", "csv"]).optional().describe("csv: the rows as CSV (as Accept: text/csv); json: the envelope whatever Accept says"),
}).strict();

export function vaultRoutes(deps: { vaults: VaultService; exports: VaultExports }) {
  const { vaults } = deps;
  // The service hands back the same list until the database changes; serialize it once.
  const renderings = new WeakMap<readonly VaultSummary[], Prerendered<{ vaults: readonly VaultSummary[] }>>();
  const rendered = (list: readonly VaultSummary[]) => {
    let body = renderings.get(list);
    if (!body) {
      body = new Prerendered({ vaults: list });
      renderings.set(list, body);
    }
    return body;
  };
  const common = ["UNAUTHENTICATED", "NOT_FOUND", "INVALID_INPUT"] as const;
  return [
    defineRoute({
      method: "get", path: "/api/vaults", tag: "vaults", auth: true,
      summary: "Vaults where you are the investor or the trader",
      response: R.vaultList,
      errors: ["UNAUTHENTICATED"],
      handler: async ({ user }) => rendered(await vaults.list(user.address)),
    }),
    defineRoute({
      method: "get", path: "/api/vaults/:address", tag: "vaults", auth: true, params: vaultParams,
      summary: "One vault: balances, limits, drawdowns, latest trades and positions",
      response: R.vaultDetailResponse,
      errors: [...common],
      handler: async ({ params, user }) => ({ vault: renderDetail(await vaults.detail(user.address, params.address)) }),
    }),
    defineRoute({
      method: "get", path: "/api/vaults/:address/trades", tag: "vaults", auth: true, params: vaultParams,
      query: datedPage,
      summary: "The vault's trades, newest first (limit 1-1000, default 100; dates as ISO 8601 or Unix seconds); CSV when asked",
      response: R.vaultTrades,
      csv: tradesCsv(deps.exports),
      errors: [...common],
      handler: async ({ params, query, user }) => {
        const page = await vaults.trades(user.address, params.address, {
          limit: query.limit, offset: query.offset, startMs: query.startDate, endMs: query.endDate,
        });
        return { trades: page.trades.map(renderTrade), total: page.total, hasMore: query.offset + page.trades.length < page.total };
      },
    }),
    defineRoute({
      method: "get", path: "/api/vaults/:address/events", tag: "vaults", auth: true, params: vaultParams, query: datedPage,
      summary: "The vault's critical events (VaultEvent records), newest first (dates as for trades); CSV when asked",
      response: R.vaultEvents,
      csv: eventsCsv(deps.exports),
      errors: [...common],
      handler: async ({ params, query, user }) => {
        const page = await vaults.events(user.address, params.address, {
          limit: query.limit, offset: query.offset,
          startS: query.startDate === undefined ? undefined : Math.ceil(query.startDate / 1000),
          endS: query.endDate === undefined ? undefined : Math.floor(query.endDate / 1000),
        });
        return { events: storedEvents(page.events), total: page.total, hasMore: query.offset + page.events.length < page.total };
      },
    }),
    defineRoute({
      method: "post", path: "/api/vaults/:address/close", tag: "vaults", auth: true, params: vaultParams,
      summary: "Close the vault (investor or trader): cancel orders, flatten positions, final balance, split on-chain",
      response: R.vaultClose,
      // CONFLICT: an order of the vault is still in doubt (with Retry-After); ORDER_REJECTED: the exchange refused a close.
      errors: [...common, "VAULT_CLOSED", "CONFLICT", "AGENT_NOT_APPROVED", "ORDER_REJECTED", "EXCHANGE_UNAVAILABLE", "CHAIN_UNAVAILABLE"],
      handler: async ({ params, user }) => ({ vault: renderCloseResult(await vaults.close(user.address, params.address)) }),
    }),
    defineRoute({
      method: "post", path: "/api/vaults/:address/unpause", tag: "vaults", auth: true, params: vaultParams,
      summary: "Unpause after recovery (trader only); the daemon writes a fresh balance first and the contract checks. "
        + "NOT_RECOVERED with the daily limit breached gives details.dailyResetAt: the next 00:00 UTC (Unix seconds), when the day's drawdown starts again",
      response: R.vaultUnpause,
      errors: [...common, "FORBIDDEN", "VAULT_CLOSED", "NOT_RECOVERED", "CONFLICT", "EXCHANGE_UNAVAILABLE", "CHAIN_UNAVAILABLE"],
      handler: async ({ params, user }) => ({ vault: await vaults.unpause(user.address, params.address) }),
    }),
    defineRoute({
      method: "post", path: "/api/vaults/:address/withdraw", tag: "vaults", auth: true, params: vaultParams,
      summary: "Withdraw your entitlement from a closed vault's escrow, to your own address",
      response: R.withdrawal,
      errors: [...common, "VAULT_NOT_CLOSED", "NOTHING_TO_WITHDRAW", "ESCROW_NOT_FUNDED", "CHAIN_UNAVAILABLE"],
      handler: async ({ params, user }) => {
        const r = await vaults.withdraw(user.address, params.address);
        return { txHash: r.txHash, amount: baseUnitsToUsdc(r.amount), recipient: r.recipient };
      },
    }),
    defineRoute({
      method: "post", path: "/api/vaults/:address/fund/prepare", tag: "vaults", auth: true, params: vaultParams,
      summary: "EIP-2612 permit typed data for funding the vault's settlement escrow (investor only)",
      body: z.object({ amount: usdc }).strict(),
      response: R.fundPrepare,
      errors: [...common, "FORBIDDEN", "CHAIN_UNAVAILABLE"],
      handler: async ({ params, body, user }) => {
        const r = await vaults.fundPrepare(user.address, params.address, body.amount);
        // The chain hands a generic EIP-712 document; the API promises a Permit: checked, not asserted.
        return { typedData: R.permitTypedData.parse(r.typedData), amount: baseUnitsToUsdc(r.amount), deadline: r.deadline, spender: r.spender };
      },
    }),
    defineRoute({
      method: "post", path: "/api/vaults/:address/fund", tag: "vaults", auth: true, params: vaultParams,
      summary: "Relay the investor's signed permit: the escrow pulls the amount (the investor pays no gas)",
      body: z.object({ amount: usdc, deadline: integerField(z.number().int().positive()), signature }).strict(),
      response: R.fundResult,
      errors: [...common, "FORBIDDEN", "CHAIN_UNAVAILABLE"],
      handler: async ({ params, body, user }) => {
        const r = await vaults.fund(user.address, params.address, body);
        return { txHash: r.txHash, amount: baseUnitsToUsdc(body.amount) };
      },
    }),
  ];
}
