// tradevault vaults export (a vault's trades or events as CSV, streamed to a file or stdout), and the
// performance figures `vaults show` prints.
import { createWriteStream } from "node:fs";
import { rename, rm } from "node:fs/promises";
import type { Command } from "commander";
import type { VaultPerformanceResponse } from "../../daemon/http/responses.js";
import { addressArg, dateArg } from "../args.js";
import { contextFor } from "../context.js";
import { usageError } from "../errors.js";
import { ageText } from "../../daemon/lib/figures.js";
import { keyValues, table, type Io } from "../output.js";

type Performance = VaultPerformanceResponse["performance"];

const pct = (n: number | null) => (n === null ? "- (less than a day old)" : `${n}%`);
const iso = (s: number) => new Date(s * 1000).toISOString();

/** The settlement at the last reading, and how old that reading is: the figures are only as fresh as it. */
function ifClosedText(c: Performance["ifClosedNow"], nowSeconds: number): string {
  if (c === null) return "- (the vault is closed: its settlement is above)";
  const reading = c.asOf === null ? "no reading yet: the initial balance" : `reading of ${iso(c.asOf)}, ${ageText(nowSeconds - c.asOf)} ago`;
  return `profit ${c.profit}, trader ${c.traderShare}, investor ${c.investorShare} USDC (${reading})`;
}

/** The figures as `vaults show` prints them (README "Performance figures" defines each). */
export function performanceText(p: Performance, nowSeconds = Math.floor(Date.now() / 1000)): string {
  const at = p.maxDrawdownAt === null ? "" : ` (at ${iso(p.maxDrawdownAt)})`;
  const figures = keyValues([
    ["return", pct(p.returnPct)], ["annualized (simple)", pct(p.annualizedReturnPct)],
    ["max drawdown", `${p.maxDrawdownPct}%${at}`], ["fees paid", `${p.feesPaid} USDC`],
    ["funding paid", p.fundingPaid === null ? "(the exchange could not be read just now)" : `${p.fundingPaid} USDC`],
    ["if closed now", ifClosedText(p.ifClosedNow, nowSeconds)],
  ]);
  const days = p.daily.slice(-7);
  const daily = days.length === 0 ? "(no reading yet)" : table(["DAY (UTC)", "CLOSING BALANCE", "PNL"], days.map((d) => [d.day, d.closingBalance, d.pnl]));
  return `${figures}\n\nDaily (last ${days.length}):\n${daily}`;
}

export function exportCommand(cmd: Command, io: Io): void {
  cmd.command("export <address>").description("the vault's trades or events as CSV (every row, newest first), streamed")
    .option("--trades", "export the trades").option("--events", "export the events")
    .option("--out <file>", "write to this file (default: standard output)")
    .option("--from <date>", "ISO date/date-time or Unix seconds").option("--to <date>", "ISO date/date-time or Unix seconds")
    .action(async (address: string, o: { trades?: boolean; events?: boolean; out?: string; from?: string; to?: string }, c: Command) => {
      if (Boolean(o.trades) === Boolean(o.events)) throw usageError("say what to export: --trades or --events");
      const q = new URLSearchParams({
        format: "csv", ...(o.from ? { startDate: dateArg("--from", o.from) } : {}), ...(o.to ? { endDate: dateArg("--to", o.to) } : {}),
      });
      const where = `/api/vaults/${addressArg("the vault address", address)}/${o.trades ? "trades" : "events"}?${q}`;
      const ctx = contextFor(c, io);
      const api = ctx.authedApi();
      if (!o.out) return api.download(where, io.stdout, { end: false }); // standard output stays open
      // Written beside the file and moved into place once whole: a failed export leaves no half file.
      const partial = `${o.out}.partial`;
      try {
        await api.download(where, createWriteStream(partial));
        await rename(partial, o.out);
      } catch (err) {
        await rm(partial, { force: true });
        throw err;
      }
      io.stderr.write(`Wrote the vault's ${o.trades ? "trades" : "events"} to ${o.out}\n`);
    });
}
