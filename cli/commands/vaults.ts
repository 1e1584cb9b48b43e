// tradevault vaults list | show | trades | events | export | close | unpause | fund | withdraw.
import { Command } from "commander";
import type {
  FundPrepare, FundResult, VaultClose, VaultDetail, VaultDetailResponse, VaultEvents, VaultList, VaultPerformanceResponse, VaultTrades,
  VaultUnpause, Withdrawal,
} from "../../daemon/http/responses.js";
// Plain modules with no imports of their own but each other: the one describer of an event.
import { narrator } from "../../daemon/events/describe-event.js";
import { drawdownOfLimit } from "../../daemon/lib/figures.js";
import { addressArg, dateArg, integerArg, positiveArg } from "../args.js";
import { contextFor } from "../context.js";
import { foldBalances } from "../fold-balances.js";
import { keyValues, printResult, table, type Io } from "../output.js";
import { withProgress } from "../progress.js";
import { BREACH_POLICY_TEXT } from "../terms.js";
import { unlockWallet } from "./session.js";
import { exportCommand, performanceText } from "./vault-figures.js";

const iso = (s: number | null) => (s ? new Date(s * 1000).toISOString() : "-");
/** The vault argument, checked before anything goes over the network. */
const path = (address: string, rest = "") => `/api/vaults/${addressArg("the vault address", address)}${rest}`;

/** "holds since ...", or what is wrong and since when: whether the breach policy is in force. */
function enforcementText(e: NonNullable<VaultDetail["enforcement"]>): string {
  const since = `since ${iso(e.since)}`;
  if (e.state === "holds") return `holds (${since})`;
  return `${e.state === "failing" ? "FAILING" : "being enforced"} ${since}, ${e.attempts} attempt${e.attempts === 1 ? "" : "s"}${e.lastError ? `: ${e.lastError}` : ""}`;
}

function showVault(v: VaultDetail): string {
  const s = v.settlement;
  return keyValues([
    ["vault", v.address], ["status", `${v.status}${v.paused ? ` (paused: ${v.pauseReason})` : ""}`],
    ["investor", v.investor], ["trader", v.trader], ["exchange account", v.exchangeAccount],
    ["initial balance", v.initialBalance], ["current balance", v.currentBalance], ["peak balance", v.peakBalance],
    ["drawdown", drawdownOfLimit(v.currentDrawdown, v.maxDrawdown)], ["daily drawdown", drawdownOfLimit(v.currentDailyDrawdown, v.dailyDrawdown)],
    ["deal deadline", iso(v.dealDeadline)], ["last balance update", iso(v.lastBalanceUpdate)],
    ["profit share", `trader ${v.profitShare.trader}% / investor ${v.profitShare.investor}%`],
    ["on a breach", BREACH_POLICY_TEXT[v.breachPolicy]],
    ...(v.enforcement ? [["policy", enforcementText(v.enforcement)]] as Array<[string, unknown]> : []),
    ...(v.accountMode ? [["account mode", v.accountMode]] as Array<[string, unknown]> : []),
    ...(v.closed ? [["final balance", s.finalBalance], ["profit", s.profit], ["trader share", s.traderShare], ["investor share", s.investorShare]] as Array<[string, unknown]> : []),
    ["escrow funded", s.funded],
  ]);
}

/** The investor's command that covers what the escrow lacks. */
const fundCommand = (vault: string, amount: string) => `npx tradevault vaults fund ${vault} ${amount}`;

function closeText(v: VaultClose["vault"]): string {
  // A daemon from before the escrow was reported answers without it.
  const e = v.escrow as VaultClose["vault"]["escrow"] | undefined;
  return keyValues([["vault", v.address], ["status", v.status], ["final balance", v.finalBalance],
    ["profit", v.profit], ["trader share", v.traderShare], ["investor share", v.investorShare],
    ...(v.leftOpen.length > 0
      ? [["left open", `${v.leftOpen.map((p) => `${p.size} ${p.symbol} (${p.value} USDC)`).join(", ")}: below the exchange's minimum order, valued at mark in the final balance`]] as Array<[string, unknown]>
      : []),
    ...(e ? [["escrow", `holds ${e.held} USDC; the trader is owed ${e.owedToTrader} USDC`]] as Array<[string, unknown]> : [])]) +
    (!e || e.toFund === "0" ? "" : `\nThe investor must fund the escrow with ${e.toFund} USDC before the trader can be paid in full: ${fundCommand(v.address, e.toFund)}`);
}

function readCommands(cmd: Command, io: Io): void {
  cmd.command("list").action(async (_o, c: Command) => {
    const ctx = contextFor(c, io);
    const r = await ctx.authedApi().request<VaultList>("GET", "/api/vaults");
    printResult(io, ctx.json, r, () => table(["VAULT", "STATUS", "PAUSED", "INITIAL", "CURRENT", "DRAWDOWN", "DAILY DRAWDOWN", "DEADLINE"],
      r.vaults.map((v) => [
        v.address, v.status, v.paused ? "yes" : "no", v.initialBalance, v.currentBalance,
        drawdownOfLimit(v.currentDrawdown, v.maxDrawdown), drawdownOfLimit(v.currentDailyDrawdown, v.dailyDrawdown), iso(v.dealDeadline),
      ])));
  });

  cmd.command("show <address>").action(async (address: string, _o, c: Command) => {
    const where = path(address);
    const ctx = contextFor(c, io);
    const api = ctx.authedApi();
    const [r, { performance }] = await Promise.all([
      api.request<VaultDetailResponse>("GET", where), api.request<VaultPerformanceResponse>("GET", `${where}/performance`),
    ]);
    const positions = () => r.vault.positionsAvailable
      ? table(["SYMBOL", "SIZE", "ENTRY", "MARK", "UNREALIZED PNL"], r.vault.positions.map((p) => [p.symbol, p.size, p.entryPrice, p.markPrice, p.unrealizedPnl]))
      : "(the exchange could not be read just now: positions unknown)";
    printResult(io, ctx.json, { ...r, performance }, () => `${showVault(r.vault)}\n\nPerformance:\n${performanceText(performance)}\n\nPositions:\n${positions()}`);
  });

  cmd.command("trades <address>").description("the vault's trades, newest first")
    .option("--from <date>", "ISO date/date-time or Unix seconds").option("--to <date>", "ISO date/date-time or Unix seconds")
    .option("--limit <n>", "1-1000", "100").option("--offset <n>", "", "0")
    .action(async (address: string, o, c: Command) => {
      const q = new URLSearchParams({
        limit: String(integerArg("--limit", o.limit, 1, 1000)), offset: String(integerArg("--offset", o.offset)),
        ...(o.from ? { startDate: dateArg("--from", o.from) } : {}), ...(o.to ? { endDate: dateArg("--to", o.to) } : {}),
      });
      const where = path(address, `/trades?${q}`);
      const ctx = contextFor(c, io);
      const r = await ctx.authedApi().request<VaultTrades>("GET", where);
      printResult(io, ctx.json, r, () => `${table(["ID", "TIME", "SYMBOL", "SIDE", "SIZE", "PRICE", "PNL"],
        r.trades.map((t) => [t.id, iso(t.timestamp), t.symbol, t.side, t.size, t.price, t.pnl]))}\n${r.trades.length} of ${r.total}${r.hasMore ? " (more: --offset)" : ""}`);
    });

  cmd.command("events <address>").description("the vault's recorded events, newest first, each in a sentence (unchanged balance readings in a row as one line)").option("--limit <n>", "1-1000", "100")
    .action(async (address: string, o, c: Command) => {
      const where = path(address);
      const limit = integerArg("--limit", o.limit, 1, 1000);
      const ctx = contextFor(c, io);
      const api = ctx.authedApi();
      const [r, { vault }] = await Promise.all([
        api.request<VaultEvents>("GET", `${where}/events?limit=${limit}`), api.request<VaultDetailResponse>("GET", where),
      ]);
      // Told oldest first, so a pause is told with the reading that paused it; listed newest first.
      const tell = narrator();
      const told = new Map([...r.events].reverse().map((e) => [e.id, tell(e, vault).sentence]));
      const lines = foldBalances(r.events.map((e) => ({ ...e, sentence: told.get(e.id)! })));
      printResult(io, ctx.json, r, () => table(["ID", "TIME", "EVENT"], lines.map((l) => [l.id, iso(l.time), l.text])));
    });
}

function actionCommands(cmd: Command, io: Io): void {
  cmd.command("close <address>").description("close the vault (investor or trader): flatten, settle the split on-chain")
    .action(async (address: string, _o, c: Command) => {
      const where = path(address, "/close");
      const ctx = contextFor(c, io);
      const r = await withProgress(io, ctx.json, "Closing the vault", () => ctx.authedApi().request<VaultClose>("POST", where));
      printResult(io, ctx.json, r, () => closeText(r.vault));
    });

  cmd.command("unpause <address>").description("unpause after recovery (trader only)")
    .action(async (address: string, _o, c: Command) => {
      const where = path(address, "/unpause");
      const ctx = contextFor(c, io);
      const r = await withProgress(io, ctx.json, "Unpausing the vault", () => ctx.authedApi().request<VaultUnpause>("POST", where));
      printResult(io, ctx.json, r, () => `Vault ${r.vault.address} is trading again.`);
    });

  cmd.command("fund <address> <amount>").description("fund the vault's settlement escrow with a permit your wallet signs (investor)")
    .option("-w, --wallet <name>").action(async (address: string, amount: string, o: { wallet?: string }, c: Command) => {
      positiveArg("the amount", amount);
      const where = path(address);
      const ctx = contextFor(c, io);
      const api = ctx.authedApi();
      const prep = await api.request<FundPrepare>("POST", `${where}/fund/prepare`, { amount });
      const { wallet } = await unlockWallet(ctx, o.wallet);
      const { EIP712Domain: _d, ...types } = prep.typedData.types;
      const signature = await wallet.signTypedData(prep.typedData.domain, types, prep.typedData.message);
      const r = await withProgress(io, ctx.json, "Funding the escrow", () =>
        api.request<FundResult>("POST", `${where}/fund`, { amount, deadline: prep.deadline, signature }));
      printResult(io, ctx.json, r, () => `Funded ${r.amount} USDC (tx ${r.txHash}).`);
    });

  cmd.command("withdraw <address>").description("withdraw your entitlement from a closed vault").action(async (address: string, _o, c: Command) => {
    const where = path(address, "/withdraw");
    const ctx = contextFor(c, io);
    // An escrow not funded yet: the daemon's refusal names the investor's fund command.
    const r = await withProgress(io, ctx.json, "Withdrawing", () => ctx.authedApi().request<Withdrawal>("POST", where));
    printResult(io, ctx.json, r, () => `Withdrew ${r.amount} USDC to ${r.recipient} (tx ${r.txHash}).`);
  });
}

export function vaultsCommand(io: Io): Command {
  const cmd = new Command("vaults").description("vaults where you are the investor or the trader");
  readCommands(cmd, io);
  exportCommand(cmd, io);
  actionCommands(cmd, io);
  return cmd;
}
