// tradevault buy | sell | stop | take-profit | orders | order | cancel | positions | close: trading
// through the daemon.
import { Command, Option } from "commander";
import type { CancelResult, OneOrder, OpenOrders, Positions, TradeResult } from "../../daemon/http/responses.js";
import { addressArg, positiveArg, orderIdArg } from "../args.js";
import { contextFor, type CliContext } from "../context.js";
import { CliError, usageError } from "../errors.js";
// A plain module with no imports but lib/figures.ts: the words the dashboard uses too.
import { describeFill, describeProtection } from "../../daemon/trading/describe-fill.js";
import { keyValues, printResult, table, type Io } from "../output.js";
import { canPrompt, promptsOf } from "../prompt.js";

const vaultOf = (o: { vault?: string }) => (o.vault === undefined ? undefined : addressArg("--vault", o.vault));
const vaultQuery = (vault?: string) => (vault ? `?vaultAddress=${encodeURIComponent(vault)}` : "");

/** Orders are confirmed on a terminal; --yes, --json and scripts skip the question. */
async function confirmed(ctx: CliContext, yes: boolean | undefined, summary: string): Promise<void> {
  if (yes || !canPrompt(ctx.io, ctx.json)) return;
  if (!(await promptsOf(ctx.io).confirm({ message: `${summary}. Send it?`, default: false }))) {
    throw new CliError("CANCELLED", "not sent", 1);
  }
}

/** Sends an order-placing request and reports it with what filled at once (the answer's `fill`). */
async function place(ctx: CliContext, path: string, body: object, o: { idempotencyKey?: string }, what: string, size?: string) {
  const headers: Record<string, string> = o.idempotencyKey ? { "Idempotency-Key": String(o.idempotencyKey) } : {};
  const r = await ctx.authedApi().request<TradeResult>("POST", path, body, headers);
  const protection = r.protection ? `; ${describeProtection(r.protection)}` : "";
  printResult(ctx.io, ctx.json, r, () => `Order ${r.orderId} ${r.status}${r.fill ? `, ${describeFill(r.fill, size)}` : ""}: ${what}${protection}.`);
}

function orderCommand(io: Io, side: "buy" | "sell"): Command {
  return new Command(side)
    .description(`${side} a perpetual: a limit order with --price, else a market order (IOC at the mid with a slippage bound)`)
    .argument("<symbol>", "asset, e.g. BTC")
    .argument("<size>", "size in the asset, e.g. 0.01")
    .option("--price <price>", "limit price")
    .addOption(new Option("--tif <tif>", "time in force of a limit order").choices(["GTC", "IOC", "ALO"]))
    .option("--reduce-only", "only reduce a position")
    .option("--stop-loss <price>", "with a stop-loss: closes what this order opens at market once the mark crosses <price>")
    .option("--take-profit <price>", "with a take-profit, likewise (both start once this order fills)")
    .option("--vault <address>", "trade a vault's account (you must be its trader)")
    .option("--idempotency-key <key>", "retrying with the same key never places a second order")
    .option("-y, --yes", "do not ask for confirmation")
    .action(async (symbol: string, size: string, o, cmd: Command) => {
      const vault = vaultOf(o);
      const stopLoss = o.stopLoss === undefined ? undefined : positiveArg("--stop-loss", o.stopLoss);
      const takeProfit = o.takeProfit === undefined ? undefined : positiveArg("--take-profit", o.takeProfit);
      const body = {
        symbol: symbol.toUpperCase(), side, size: positiveArg("the size", size),
        ...(o.price ? { price: positiveArg("--price", o.price) } : {}),
        ...(o.tif ? { tif: o.tif } : {}),
        ...(o.reduceOnly ? { reduceOnly: true } : {}),
        ...(stopLoss ? { stopLoss: { price: stopLoss } } : {}),
        ...(takeProfit ? { takeProfit: { price: takeProfit } } : {}),
        ...(vault ? { vaultAddress: vault } : {}),
      };
      const ctx = contextFor(cmd, io);
      const guards = [stopLoss && `stop-loss ${stopLoss}`, takeProfit && `take-profit ${takeProfit}`].filter(Boolean).join(", ");
      const what = `${side} ${body.size} ${body.symbol} ${o.price ? `at ${o.price} (${o.tif ?? "GTC"})` : "at market"}${guards ? ` with ${guards}` : ""}${vault ? ` for vault ${vault}` : ""}`;
      await confirmed(ctx, o.yes, what);
      await place(ctx, "/api/trade", body, { idempotencyKey: o.idempotencyKey }, what, body.size);
    });
}

/**
 * tradevault stop | take-profit <symbol> <trigger-price>: a reduce-only trigger order on the side
 * opposite the position, for the whole position unless --size says less; no position is a usage error.
 */
function triggerCommand(io: Io, kind: "sl" | "tp"): Command {
  const name = kind === "sl" ? "stop" : "take-profit";
  return new Command(name)
    .description(`${kind === "sl" ? "a stop-loss" : "a take-profit"}: closes the position at market once the mark crosses <trigger-price> (reduce-only)`)
    .argument("<symbol>", "asset, e.g. BTC")
    .argument("<trigger-price>", "the mark price that fires it")
    .option("--size <size>", "how much of the position (default: all of it)")
    .option("--limit <price>", "fire as a limit order at this price instead of at market")
    .option("--vault <address>", "a vault's account (you must be its trader)")
    .option("--idempotency-key <key>", "retrying with the same key never places a second order")
    .option("-y, --yes", "do not ask for confirmation")
    .action(async (symbol: string, triggerPrice: string, o, cmd: Command) => {
      const vault = vaultOf(o);
      const price = positiveArg("<trigger-price>", triggerPrice);
      const size = o.size === undefined ? undefined : positiveArg("--size", o.size);
      const limit = o.limit === undefined ? undefined : positiveArg("--limit", o.limit);
      const ctx = contextFor(cmd, io);
      const sym = symbol.toUpperCase();
      const held = (await ctx.authedApi().request<Positions>("GET", `/api/positions${vaultQuery(vault)}`)).positions.find((p) => p.symbol === sym);
      if (!held || held.size === 0) throw usageError(`no ${sym} position${vault ? ` on vault ${vault}` : ""} to protect`, `open one first (npx tradevault buy ${sym} <size>)`);
      const side = held.size > 0 ? "sell" : "buy";
      const body = {
        symbol: sym, side, size: size ?? String(Math.abs(held.size)),
        ...(limit ? { price: limit } : {}),
        trigger: { price, kind, market: limit === undefined },
        ...(vault ? { vaultAddress: vault } : {}),
      };
      const what = `${name} ${side} ${body.size} ${sym} when the mark reaches ${price}${limit ? `, limit ${limit}` : ", at market"}${vault ? ` for vault ${vault}` : ""}`;
      await confirmed(ctx, o.yes, what);
      await place(ctx, "/api/trade", body, { idempotencyKey: o.idempotencyKey }, what);
    });
}

export function tradingCommands(io: Io): Command[] {
  const orders = new Command("orders")
    .description("list open orders")
    .option("--vault <address>", "a vault's account")
    .action(async (o, cmd: Command) => {
      const vault = vaultOf(o);
      const ctx = contextFor(cmd, io);
      const r = await ctx.authedApi().request<OpenOrders>("GET", `/api/orders${vaultQuery(vault)}`);
      const triggerText = (x: OpenOrders["orders"][number]) =>
        (x.trigger ? `${x.trigger.kind === "sl" ? "stop-loss" : "take-profit"} at ${x.trigger.price}${x.trigger.market ? "" : " (limit)"}${x.trigger.triggered ? ", fired" : ""}`
          : x.protection ? `with ${describeProtection(x.protection)}` : "");
      printResult(io, ctx.json, r, () =>
        table(["ORDER", "SYMBOL", "SIDE", "SIZE", "PRICE", "STATUS", "TRIGGER"], r.orders.map((x) => [x.orderId, x.symbol, x.side, x.size, x.price, x.status, triggerText(x)])),
      );
    });

  const order = new Command("order")
    .description("show one order with its fills")
    .argument("<orderId>")
    .option("--vault <address>", "a vault's account")
    .action(async (id: string, o, cmd: Command) => {
      const orderId = orderIdArg(id);
      const vault = vaultOf(o);
      const ctx = contextFor(cmd, io);
      const r = await ctx.authedApi().request<OneOrder>("GET", `/api/orders/${orderId}${vaultQuery(vault)}`);
      const x = r.order;
      printResult(io, ctx.json, r, () =>
        `${keyValues([["order", x.orderId], ["symbol", x.symbol], ["side", x.side], ["size", x.size], ["remaining", x.remaining], ["price", x.price], ["status", x.status]])}\n\n` +
        table(["TIME", "PRICE", "SIZE", "FEE", "PNL"], x.fills.map((f) => [new Date(f.time).toISOString(), f.price, f.size, f.fee, f.closedPnl])),
      );
    });

  const cancel = new Command("cancel")
    .description("cancel a resting order")
    .argument("<orderId>")
    .option("--vault <address>", "a vault's account")
    .action(async (id: string, o, cmd: Command) => {
      const orderId = orderIdArg(id);
      const vault = vaultOf(o);
      const ctx = contextFor(cmd, io);
      const r = await ctx.authedApi().request<CancelResult>("DELETE", `/api/orders/${orderId}${vaultQuery(vault)}`);
      printResult(io, ctx.json, r, () => `Order ${r.orderId} canceled.`);
    });

  const positions = new Command("positions")
    .description("list open positions (negative size: short)")
    .option("--vault <address>", "a vault's account")
    .action(async (o, cmd: Command) => {
      const vault = vaultOf(o);
      const ctx = contextFor(cmd, io);
      const r = await ctx.authedApi().request<Positions>("GET", `/api/positions${vaultQuery(vault)}`);
      printResult(io, ctx.json, r, () =>
        table(["SYMBOL", "SIZE", "ENTRY", "MARK", "UNREALIZED PNL", "LIQUIDATION"],
          r.positions.map((p) => [p.symbol, p.size, p.entryPrice, p.markPrice, p.unrealizedPnl, p.liquidationPrice])),
      );
    });

  const close = new Command("close")
    .description("close a position (or --size of it) with a reduce-only market order")
    .argument("<symbol>")
    .option("--size <size>", "how much to close (default: all)")
    .option("--vault <address>", "a vault's account")
    .option("--idempotency-key <key>", "retrying with the same key never closes twice")
    .option("-y, --yes", "do not ask for confirmation")
    .action(async (symbol: string, o, cmd: Command) => {
      const vault = vaultOf(o);
      const size = o.size === undefined ? undefined : positiveArg("--size", o.size);
      const body = { symbol: symbol.toUpperCase(), ...(size ? { size } : {}), ...(vault ? { vaultAddress: vault } : {}) };
      const ctx = contextFor(cmd, io);
      const what = `close ${size ?? "all of the"} ${body.symbol} position at market`;
      await confirmed(ctx, o.yes, what);
      await place(ctx, "/api/positions/close", body, { idempotencyKey: o.idempotencyKey }, what, size);
    });

  return [orderCommand(io, "buy"), orderCommand(io, "sell"), triggerCommand(io, "sl"), triggerCommand(io, "tp"), orders, order, cancel, positions, close];
}
