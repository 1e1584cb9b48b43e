// The typed route contract (daemon/http/answer.ts), proved by the compiler: `npm run typecheck`
// (tsconfig.test.json includes test/**) compiles this file. Each `@ts-expect-error` marks a handler
// whose answer drifts from its route's response schema; should the contract stop catching one, the
// directive is unused and tsc fails (TS2578). The handlers that keep their schema must compile, so the
// check is not vacuous. Nothing here runs: the runner takes only *.test.ts files.
import { z } from "zod";
import { Prerendered } from "../../daemon/http/answer.js";
import * as R from "../../daemon/http/responses.js";
import { defineRawRoute, defineRoute } from "../../daemon/http/route.js";

const base = { method: "get", path: "/x", summary: "", tag: "t", auth: false } as const;
const trade = { orderId: 1, status: "submitted", timestamp: 1 } as const;
const position = { symbol: "BTC", size: 1, entryPrice: 1, markPrice: 1, unrealizedPnl: 0, liquidationPrice: null };
const summary = {
  address: "0x", investor: "0x", trader: "0x", initialBalance: "1", currentBalance: "1",
  status: "ACTIVE", paused: false, dealDeadline: 1, profitShare: { trader: 20, investor: 80 },
  maxDrawdown: 10, dailyDrawdown: 5, currentDrawdown: 0, currentDailyDrawdown: 0,
} as const;
const paused = { id: 1, vault: "0x", type: "Paused", time: 1, txHash: null, blockNumber: null } as const;

// ---- answers that keep their schema compile

defineRoute({ ...base, response: R.tradeResult, handler: () => trade });
defineRoute({ ...base, response: R.tradeResult, handler: async () => ({ ...trade, fill: { status: "filled", size: 1, averagePrice: 2 } }) });
defineRoute({ ...base, response: R.challenge, handler: () => ({ message: "sign this", nonce: "abc12345" }) });
defineRoute({ ...base, response: R.positions, handler: () => ({ positions: [position] }) });
defineRoute({ ...base, response: R.vaultList, handler: () => new Prerendered({ vaults: [summary] }) });
defineRoute({ ...base, response: R.vaultEvents, handler: () => ({ events: [{ ...paused, data: { reason: 1, maxDrawdown: true, dailyDrawdown: false } }], total: 1, hasMore: false }) });
defineRoute({ ...base, response: R.loggedOut, handler: () => ({}) });
defineRawRoute({ ...base, raw: true, rawResponse: { mediaType: "application/json", description: "" }, handler: ({ ctx }) => void (ctx.body = {}) });

// ---- a wrong field: a name the schema does not have (here an optional field misspelled)

// @ts-expect-error `fil` is in no schema: the optional `fill` would silently go missing
defineRoute({ ...base, response: R.tradeResult, handler: () => ({ ...trade, fil: { status: "filled", size: 1, averagePrice: 2 } }) });
// @ts-expect-error a field the schema lacks, deep in an array's element, from a spread view
defineRoute({ ...base, response: R.positions, handler: async () => ({ positions: [{ ...position, leverage: 3 }] }) });

// ---- a missing field

// @ts-expect-error no `nonce`
defineRoute({ ...base, response: R.challenge, handler: () => ({ message: "sign this" }) });
// @ts-expect-error a pre-rendered answer is checked too: a summary without `paused`
defineRoute({ ...base, response: R.vaultList, handler: () => new Prerendered({ vaults: [{ ...summary, paused: undefined }] }) });

// ---- a number where the schema says string

// @ts-expect-error `nonce` is text
defineRoute({ ...base, response: R.challenge, handler: async () => ({ message: "sign this", nonce: 12345678 }) });
// @ts-expect-error USDC balances are decimal text, never a JSON number
defineRoute({ ...base, response: R.vaultList, handler: () => new Prerendered({ vaults: [{ ...summary, currentBalance: 1 }] }) });

// ---- an event whose data is another type's

// @ts-expect-error a Paused event carries reason and which limit, not a balance
defineRoute({ ...base, response: R.vaultEvents, handler: () => ({ events: [{ ...paused, data: { balance: "1" } }], total: 1, hasMore: false }) });

// ---- a route must say what it answers

// @ts-expect-error no response schema and not raw
defineRoute({ ...base, handler: () => ({}) });
// @ts-expect-error a raw route writes its own body: it documents it with rawResponse
defineRawRoute({ ...base, raw: true, handler: () => undefined });
// @ts-expect-error a route that answers nothing says so with an empty object, and then answers one
defineRoute({ ...base, response: z.object({}), handler: () => ({ done: true }) });
