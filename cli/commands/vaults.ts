// tradevault vaults list | show | trades | events | close | unpause | fund | withdraw.
import { Command } from "commander";
import { contextFor } from "../context.js";
import { usageError } from "../errors.js";
import { keyValues, printResult, table, type Io } from "../output.js";
import { withProgress } from "../progress.js";
import { askPassword } from "../prompt.js";
import { pickWallet } from "./session.js";

type Obj = Record<string, any>;
const iso = (s: number | null) => (s ? new Date(s * 1000).toISOString() : "-");
const path = (address: string, rest = "") => `/api/vaults/${encodeURIComponent(address)}${rest}`;

function showVault(v: Obj): string {
  return keyValues([
    ["vault", v.address], ["status", `${v.status}${v.paused ? ` (paused: ${v.pauseReason})` : ""}`],
    ["investor", v.investor], ["trader", v.trader], ["exchange account", v.exchangeAccount],
    ["initial balance", v.initialBalance], ["current balance", v.currentBalance], ["peak balance", v.peakBalance],
    ["drawdown", `${v.currentDrawdown}% of max ${v.maxDrawdown}%`], ["daily drawdown", `${v.currentDailyDrawdown}% of max ${v.dailyDrawdown}%`],
    ["deal deadline", iso(v.dealDeadline)], ["last balance update", iso(v.lastBalanceUpdate)],
    ["profit share", `trader ${v.profitShare.trader}% / investor ${v.profitShare.investor}%`],
    ...(v.closed ? [["final balance", v.settlement.finalBalance], ["profit", v.settlement.profit], ["trader share", v.settlement.traderShare], ["investor share", v.settlement.investorShare]] as Array<[string, unknown]> : []),
    ["escrow funded", v.settlement.funded],
  ]);
}

export function vaultsCommand(io: Io): Command {
  const cmd = new Command("vaults").description("vaults where you are the investor or the trader");

  cmd.command("list").action(async (_o, c: Command) => {
    const ctx = contextFor(c, io);
    const r = await ctx.authedApi().request<{ vaults: Obj[] }>("GET", "/api/vaults");
    printResult(io, ctx.json, r, () => table(["VAULT", "STATUS", "PAUSED", "INITIAL", "CURRENT", "DEADLINE"],
      r.vaults.map((v) => [v.address, v.status, v.paused ? "yes" : "no", v.initialBalance, v.currentBalance, iso(v.dealDeadline)])));
  });

  cmd.command("show <address>").action(async (address: string, _o, c: Command) => {
    const ctx = contextFor(c, io);
    const r = await ctx.authedApi().request<{ vault: Obj }>("GET", path(address));
    printResult(io, ctx.json, r, () => `${showVault(r.vault)}\n\nPositions:\n${table(["SYMBOL", "SIZE", "ENTRY", "MARK", "UNREALIZED PNL"],
      r.vault.positions.map((p: Obj) => [p.symbol, p.size, p.entryPrice, p.markPrice, p.unrealizedPnl]))}`);
  });

  cmd.command("trades <address>").description("the vault's trades, newest first")
    .option("--from <date>", "ISO date/date-time or Unix seconds").option("--to <date>", "ISO date/date-time or Unix seconds")
    .option("--limit <n>", "1-1000", "100").option("--offset <n>", "", "0")
    .action(async (address: string, o, c: Command) => {
      const ctx = contextFor(c, io);
      const q = new URLSearchParams({ limit: o.limit, offset: o.offset, ...(o.from ? { startDate: o.from } : {}), ...(o.to ? { endDate: o.to } : {}) });
      const r = await ctx.authedApi().request<{ trades: Obj[]; total: number; hasMore: boolean }>("GET", path(address, `/trades?${q}`));
      printResult(io, ctx.json, r, () => `${table(["ID", "TIME", "SYMBOL", "SIDE", "SIZE", "PRICE", "PNL"],
        r.trades.map((t) => [t.id, iso(t.timestamp), t.symbol, t.side, t.size, t.price, t.pnl]))}\n${r.trades.length} of ${r.total}${r.hasMore ? " (more: --offset)" : ""}`);
    });

  cmd.command("events <address>").description("the vault's recorded events").option("--limit <n>", "", "100")
    .action(async (address: string, o, c: Command) => {
      const ctx = contextFor(c, io);
      const r = await ctx.authedApi().request<{ events: Obj[] }>("GET", path(address, `/events?limit=${encodeURIComponent(o.limit)}`));
      printResult(io, ctx.json, r, () => table(["ID", "TIME", "EVENT", "TX"], r.events.map((e) => [e.id, iso(e.time), e.type, e.txHash])));
    });

  for (const [name, description] of [["close", "close the vault (investor or trader): flatten, settle the split on-chain"], ["unpause", "unpause after recovery (trader only)"]] as const) {
    cmd.command(`${name} <address>`).description(description).action(async (address: string, _o, c: Command) => {
      const ctx = contextFor(c, io);
      const r = await withProgress(io, ctx.json, `${name === "close" ? "Closing" : "Unpausing"} the vault`, () =>
        ctx.authedApi().request<{ vault: Obj }>("POST", path(address, `/${name}`)));
      printResult(io, ctx.json, r, () => name === "close"
        ? keyValues([["vault", r.vault.address], ["status", r.vault.status], ["final balance", r.vault.finalBalance], ["profit", r.vault.profit], ["trader share", r.vault.traderShare], ["investor share", r.vault.investorShare]])
        : `Vault ${r.vault.address} is trading again.`);
    });
  }

  cmd.command("fund <address> <amount>").description("fund the vault's settlement escrow with a permit your wallet signs (investor)")
    .option("-w, --wallet <name>").action(async (address: string, amount: string, o: { wallet?: string }, c: Command) => {
      const ctx = contextFor(c, io);
      if (!/^\d+(\.\d+)?$/.test(amount)) throw usageError(`amount must be a decimal number, got "${amount}"`);
      const api = ctx.authedApi();
      const prep = await api.request<{ typedData: Obj; amount: string; deadline: number }>("POST", path(address, "/fund/prepare"), { amount });
      const name = pickWallet(ctx, o.wallet);
      const wallet = await ctx.keystore.unlock(name, await askPassword(io, ctx.json, `Password of wallet "${name}"`));
      const { EIP712Domain: _d, ...types } = prep.typedData.types;
      const signature = await wallet.signTypedData(prep.typedData.domain, types, prep.typedData.message);
      const r = await withProgress(io, ctx.json, "Funding the escrow", () =>
        api.request<{ txHash: string; amount: string }>("POST", path(address, "/fund"), { amount, deadline: prep.deadline, signature }));
      printResult(io, ctx.json, r, () => `Funded ${r.amount} USDC (tx ${r.txHash}).`);
    });

  cmd.command("withdraw <address>").description("withdraw your entitlement from a closed vault").action(async (address: string, _o, c: Command) => {
    const ctx = contextFor(c, io);
    const r = await withProgress(io, ctx.json, "Withdrawing", () =>
      ctx.authedApi().request<{ txHash: string; amount: string; recipient: string }>("POST", path(address, "/withdraw")));
    printResult(io, ctx.json, r, () => `Withdrew ${r.amount} USDC to ${r.recipient} (tx ${r.txHash}).`);
  });

  return cmd;
}
