// tradevault sim faucet | withdraw | price | adl: the embedded sim exchange's test controls (paper trading only).
// Which way they go (the sim's loopback port, or the daemon's API) is sim-controls.ts's business.
import { Command, Option } from "commander";
import { getAddress } from "ethers";
import { contextFor } from "../context.js";
import { addressArg, positiveArg } from "../args.js";
import { CliError, usageError } from "../errors.js";
import { printResult, type Io } from "../output.js";
import { apiControls, chooseVia, OPERATOR_HEADER, operatorToken, simPortOnly, viaSim } from "../sim-controls.js";
import { pickWallet } from "./session.js";

const viaOption = () =>
  new Option("--via <way>", "sim: the sim's own loopback port (the daemon's machine; unbounded) | api: the daemon's /api/sim (bounded) [default: sim when --url is loopback]");

type Out = Record<string, unknown>;

export function simCommand(io: Io): Command {
  const sim = new Command("sim").description("test controls of the embedded sim exchange (paper trading)");

  sim
    .command("faucet")
    .description("credit test USDC to a wallet's sim account (through the API: your signed-in account, at most 100000 a day)")
    .argument("<amount>", "USDC, e.g. 10000")
    .option("-w, --wallet <name>", "wallet to credit (default: TRADEVAULT_WALLET, the signed-in wallet, or the only one)")
    .option("--address <address>", "credit this address instead of a local wallet (sim's port only)")
    .addOption(viaOption())
    .action(async (amount: string, o: { wallet?: string; address?: string; via?: string }, cmd: Command) => {
      positiveArg("the amount", amount);
      if (o.address !== undefined) addressArg("--address", o.address);
      const ctx = contextFor(cmd, io);
      let r: Out;
      if (chooseVia(ctx, o.via) === "sim") {
        const user = o.address ?? ctx.keystore.info(pickWallet(ctx, o.wallet)).address;
        r = await viaSim<Out>(ctx, "/sim/faucet", { user, amount });
      } else {
        if (o.address !== undefined || o.wallet !== undefined) {
          throw usageError("through the daemon's API the faucet credits the signed-in account only", "sign in with that wallet: npx tradevault login --wallet <name>");
        }
        await apiControls(ctx);
        r = await ctx.authedApi().request<Out>("POST", "/api/sim/faucet", { amount });
      }
      // The sim answers addresses in lower case, as the venue does; everywhere else they are EIP-55.
      const user = getAddress(String(r.user));
      r = { ...r, user };
      const left = r.leftToday === undefined ? "" : ` (${String(r.leftToday)} USDC left today)`;
      printResult(io, ctx.json, r, () => `Credited ${amount} USDC to ${user} on the sim${left}.`);
    });

  sim
    .command("withdraw")
    .description("take USDC out of a wallet's sim account as a withdrawal from the exchange would (at most its withdrawable; the sim's port only)")
    .argument("<amount>", "USDC, e.g. 250")
    .option("-w, --wallet <name>", "wallet whose account pays (default: TRADEVAULT_WALLET, the signed-in wallet, or the only one)")
    .option("--address <address>", "take it from this address instead of a local wallet")
    .addOption(new Option("--via <way>", "sim only: the sim's own loopback port (the daemon's API offers no withdrawal)"))
    .action(async (amount: string, o: { wallet?: string; address?: string; via?: string }, cmd: Command) => {
      positiveArg("the amount", amount);
      if (o.address !== undefined) addressArg("--address", o.address);
      const ctx = contextFor(cmd, io);
      simPortOnly(ctx, o.via, "sim withdraw");
      const from = o.address ?? ctx.keystore.info(pickWallet(ctx, o.wallet)).address;
      const r = await viaSim<Out>(ctx, "/sim/withdraw", { user: from, amount });
      const user = getAddress(String(r.user));
      printResult(io, ctx.json, { ...r, user }, () => `Withdrew ${amount} USDC from ${user} on the sim (${String(r.usdc)} USDC left in the account).`);
    });

  sim
    .command("price")
    .description("set a sim mark price (resting orders that cross it fill)")
    .argument("<symbol>")
    .argument("<price>")
    .addOption(viaOption())
    .option("--data-dir <dir>", "the daemon's data directory, to read its operator token (same machine)")
    .action(async (symbol: string, price: string, o: { via?: string; dataDir?: string }, cmd: Command) => {
      positiveArg("the price", price);
      const ctx = contextFor(cmd, io);
      const body = { symbol: symbol.toUpperCase(), price };
      let r: Out;
      if (chooseVia(ctx, o.via) === "sim") {
        r = await viaSim<Out>(ctx, "/sim/price", body);
      } else {
        const controls = await apiControls(ctx);
        if (controls === "off") {
          throw new CliError("SIM_CONTROLS_OFF", `the daemon at ${ctx.url} lets nobody move sim prices through its API (--sim-controls off)`, 1,
            "on the daemon's machine, run this with --via sim (the sim's own loopback port)");
        }
        const headers: Record<string, string> = controls === "operator" ? { [OPERATOR_HEADER]: operatorToken(ctx, o.dataDir) } : {};
        r = await ctx.authedApi().request<Out>("POST", "/api/sim/price", body, headers);
      }
      printResult(io, ctx.json, r, () => `${body.symbol} mark set to ${price} on the sim.`);
    });

  sim
    .command("adl")
    .description("auto-deleverage a sim position at the mark, as the exchange does when a liquidation leaves another account below zero")
    .argument("<symbol>")
    .argument("[size]", "how much to close (default: the whole position)")
    .option("-w, --wallet <name>", "wallet whose position (default: TRADEVAULT_WALLET, the signed-in wallet, or the only one)")
    .option("--address <address>", "this account's position instead (a vault's: its investor's address)")
    .addOption(viaOption())
    .option("--data-dir <dir>", "the daemon's data directory, to read its operator token (same machine)")
    .action(async (symbol: string, size: string | undefined, o: { wallet?: string; address?: string; via?: string; dataDir?: string }, cmd: Command) => {
      if (size !== undefined) positiveArg("the size", size);
      if (o.address !== undefined) addressArg("--address", o.address);
      const ctx = contextFor(cmd, io);
      const body = { symbol: symbol.toUpperCase(), ...(size === undefined ? {} : { size }) };
      let r: Out;
      if (chooseVia(ctx, o.via) === "sim") {
        r = await viaSim<Out>(ctx, "/sim/adl", { ...body, user: o.address ?? ctx.keystore.info(pickWallet(ctx, o.wallet)).address });
      } else {
        if (o.wallet !== undefined) throw usageError("through the daemon's API --wallet has no meaning", "name the account with --address, or leave it out for the signed-in one");
        const controls = await apiControls(ctx);
        if (controls === "off") {
          throw new CliError("SIM_CONTROLS_OFF", `the daemon at ${ctx.url} lets nobody deleverage sim positions through its API (--sim-controls off)`, 1,
            "on the daemon's machine, run this with --via sim (the sim's own loopback port)");
        }
        const headers: Record<string, string> = controls === "operator" ? { [OPERATOR_HEADER]: operatorToken(ctx, o.dataDir) } : {};
        r = await ctx.authedApi().request<Out>("POST", "/api/sim/adl", { ...body, ...(o.address === undefined ? {} : { user: o.address }) }, headers);
      }
      const user = getAddress(String(r.user));
      printResult(io, ctx.json, { ...r, user }, () =>
        `Auto-deleveraged ${String(r.size)} ${body.symbol} of ${user} at ${String(r.price)} on the sim (closed PnL ${String(r.closedPnl)}; position now ${String(r.position)}).`);
    });

  return sim;
}
