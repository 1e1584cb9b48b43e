// tradevault sim faucet | price: the embedded sim exchange's test controls (paper trading only).
// The CLI finds the sim through the daemon's /healthz and talks to it on loopback.
import { Command } from "commander";
import { contextFor, type CliContext } from "../context.js";
import { addressArg, decimalArg } from "../args.js";
import { CliError } from "../errors.js";
import { printResult, type Io } from "../output.js";
import { pickWallet } from "./session.js";

async function simUrl(ctx: CliContext): Promise<string> {
  const health = await ctx.api().request<{ exchange?: { kind: string; url: string } }>("GET", "/healthz");
  if (health.exchange?.kind !== "sim") {
    throw new CliError("NOT_SIM", `the daemon at ${ctx.url} trades on ${health.exchange?.kind ?? "an unknown exchange"}, not the sim`, 1);
  }
  return health.exchange.url;
}

async function control<T>(url: string, path: string, body: unknown): Promise<T> {
  const res = await fetch(`${url}${path}`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  const text = await res.text();
  if (!res.ok) throw new CliError("SIM_REFUSED", `the sim refused: ${text.slice(0, 300)}`, 1);
  return JSON.parse(text) as T;
}

export function simCommand(io: Io): Command {
  const sim = new Command("sim").description("test controls of the embedded sim exchange (paper trading)");

  sim
    .command("faucet")
    .description("credit test USDC to a wallet's sim account")
    .argument("<amount>", "USDC, e.g. 10000")
    .option("-w, --wallet <name>", "wallet to credit (default: TRADEVAULT_WALLET, the signed-in wallet, or the only one)")
    .option("--address <address>", "credit this address instead of a local wallet")
    .action(async (amount: string, o: { wallet?: string; address?: string }, cmd: Command) => {
      decimalArg("the amount", amount);
      if (o.address !== undefined) addressArg("--address", o.address);
      const ctx = contextFor(cmd, io);
      const user = o.address ?? ctx.keystore.info(pickWallet(ctx, o.wallet)).address;
      const r = await control<Record<string, unknown>>(await simUrl(ctx), "/sim/faucet", { user, amount });
      printResult(io, ctx.json, r, () => `Credited ${amount} USDC to ${user} on the sim.`);
    });

  sim
    .command("price")
    .description("set a sim mark price (resting orders that cross it fill)")
    .argument("<symbol>")
    .argument("<price>")
    .action(async (symbol: string, price: string, _o, cmd: Command) => {
      decimalArg("the price", price);
      const ctx = contextFor(cmd, io);
      const r = await control<Record<string, unknown>>(await simUrl(ctx), "/sim/price", { symbol: symbol.toUpperCase(), price });
      printResult(io, ctx.json, r, () => `${symbol.toUpperCase()} mark set to ${price} on the sim.`);
    });

  return sim;
}
