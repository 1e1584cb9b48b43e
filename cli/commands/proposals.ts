// tradevault proposals create | list | show | accept | reject: vault terms both parties sign.
import { Command } from "commander";
import { input } from "@inquirer/prompts";
import { contextFor, type CliContext } from "../context.js";
import { usageError } from "../errors.js";
import { keyValues, printResult, table, type Io } from "../output.js";
import { withProgress } from "../progress.js";
import { askPassword, canPrompt } from "../prompt.js";
import { pickWallet } from "./session.js";

interface Proposal {
  id: number; status: string; investor: string; trader: string; exchangeAccount: string; initialBalance: string;
  maxDrawdown: number; dailyDrawdown: number; dealDeadline: number; profitShare: { trader: number; investor: number };
  validUntil: number; signedBy: { investor: boolean; trader: boolean }; vaultAddress: string | null; relayError: string | null;
  typedData: { domain: Record<string, unknown>; types: Record<string, Array<{ name: string; type: string }>>; primaryType: string; message: Record<string, unknown> };
}

const iso = (s: number) => new Date(s * 1000).toISOString();

export const showProposal = (p: Proposal) =>
  keyValues([
    ["proposal", p.id], ["status", p.status], ["investor", p.investor], ["trader", p.trader],
    ["exchange account", p.exchangeAccount], ["initial balance", `${p.initialBalance} USDC`],
    ["max drawdown", `${p.maxDrawdown}%`], ["daily drawdown", `${p.dailyDrawdown}%`], ["deal deadline", iso(p.dealDeadline)],
    ["profit share", `trader ${p.profitShare.trader}% / investor ${p.profitShare.investor}%`], ["valid until", iso(p.validUntil)],
    ["signed by", [p.signedBy.investor && "investor", p.signedBy.trader && "trader"].filter(Boolean).join(", ") || "nobody yet"],
    ["vault", p.vaultAddress ?? "-"], ...(p.relayError ? [["relay error", p.relayError] as [string, unknown]] : []),
  ]);

/** A required option, asked for on a terminal when missing. */
async function need(ctx: CliContext, value: string | undefined, flag: string, question: string): Promise<string> {
  if (value !== undefined) return value;
  if (!canPrompt(ctx.io, ctx.json)) throw usageError(`${flag} is required`);
  return input({ message: question, required: true });
}

const number = (flag: string, v: string) => {
  if (!/^\d+(\.\d+)?$/.test(v)) throw usageError(`${flag} must be a number, got "${v}"`);
  return Number(v);
};

async function signAndAccept(ctx: CliContext, id: string, walletName?: string) {
  const api = ctx.authedApi();
  const { proposal } = await api.request<{ proposal: Proposal }>("GET", `/api/proposals/${encodeURIComponent(id)}`);
  const name = pickWallet(ctx, walletName);
  const wallet = await ctx.keystore.unlock(name, await askPassword(ctx.io, ctx.json, `Password of wallet "${name}"`));
  const { EIP712Domain: _d, ...types } = proposal.typedData.types;
  const signature = await wallet.signTypedData(proposal.typedData.domain, types, proposal.typedData.message);
  return withProgress(ctx.io, ctx.json, "Signing and relaying", () =>
    api.request<{ proposal: Proposal }>("POST", `/api/proposals/${encodeURIComponent(id)}/accept`, { signature }));
}

export function proposalsCommand(io: Io): Command {
  const cmd = new Command("proposals").description("vault proposals: terms an investor and a trader both sign");

  cmd.command("create")
    .description("propose vault terms (asks for what is missing on a terminal)")
    .option("--investor <address>").option("--trader <address>")
    .option("--exchange-account <address>", "exchange account the vault trades (default: the investor's)")
    .option("--balance <usdc>", "initial balance in USDC").option("--max-drawdown <percent>").option("--daily-drawdown <percent>")
    .option("--days <n>", "deal length in days").option("--trader-share <percent>", "trader's share of the profit")
    .option("--valid-days <n>", "days the counterparty has to sign (default 7, at most the deal length)")
    .action(async (o, c: Command) => {
      const ctx = contextFor(c, io);
      const investor = await need(ctx, o.investor, "--investor", "Investor address");
      const trader = await need(ctx, o.trader, "--trader", "Trader address");
      const balance = await need(ctx, o.balance, "--balance", "Initial balance (USDC)");
      const maxDrawdown = number("--max-drawdown", await need(ctx, o.maxDrawdown, "--max-drawdown", "Max drawdown (%)"));
      const dailyDrawdown = number("--daily-drawdown", await need(ctx, o.dailyDrawdown, "--daily-drawdown", "Daily drawdown (%)"));
      const days = number("--days", await need(ctx, o.days, "--days", "Deal length (days)"));
      const traderShare = number("--trader-share", await need(ctx, o.traderShare, "--trader-share", "Trader's profit share (%)"));
      const now = Math.floor(Date.now() / 1000);
      const body = {
        investor, trader, initialBalance: balance, maxDrawdown, dailyDrawdown, dealDeadline: now + Math.round(days * 86_400),
        profitShare: { trader: traderShare, investor: Math.round((100 - traderShare) * 100) / 100 },
        ...(o.exchangeAccount ? { exchangeAccount: o.exchangeAccount } : {}),
        ...(o.validDays ? { validUntil: now + Math.round(number("--valid-days", o.validDays) * 86_400) } : {}),
      };
      const { proposal } = await ctx.authedApi().request<{ proposal: Proposal }>("POST", "/api/proposals", body);
      printResult(io, ctx.json, { proposal }, () => `${showProposal(proposal)}\n\nBoth parties now sign it: tradevault proposals accept ${proposal.id}`);
    });

  cmd.command("list").description("your proposals").action(async (_o, c: Command) => {
    const ctx = contextFor(c, io);
    const r = await ctx.authedApi().request<{ proposals: Proposal[]; total: number }>("GET", "/api/proposals");
    printResult(io, ctx.json, r, () =>
      table(["ID", "STATUS", "INVESTOR", "TRADER", "BALANCE", "SIGNED", "VAULT"], r.proposals.map((p) => [
        p.id, p.status, p.investor, p.trader, p.initialBalance,
        `${p.signedBy.investor ? "I" : "-"}${p.signedBy.trader ? "T" : "-"}`, p.vaultAddress,
      ])));
  });

  cmd.command("show <id>").description("one proposal").action(async (id: string, _o, c: Command) => {
    const ctx = contextFor(c, io);
    const r = await ctx.authedApi().request<{ proposal: Proposal }>("GET", `/api/proposals/${encodeURIComponent(id)}`);
    printResult(io, ctx.json, r, () => showProposal(r.proposal));
  });

  cmd.command("accept <id>").description("sign the terms with your wallet (locally); the vault deploys once both have")
    .option("-w, --wallet <name>").action(async (id: string, o: { wallet?: string }, c: Command) => {
      const ctx = contextFor(c, io);
      const r = await signAndAccept(ctx, id, o.wallet);
      printResult(io, ctx.json, r, () => `${showProposal(r.proposal)}${r.proposal.vaultAddress ? `\n\nVault deployed at ${r.proposal.vaultAddress}.` : ""}`);
    });

  cmd.command("reject <id>").description("turn a proposal down").action(async (id: string, _o, c: Command) => {
    const ctx = contextFor(c, io);
    const r = await ctx.authedApi().request<{ proposal: Proposal }>("POST", `/api/proposals/${encodeURIComponent(id)}/reject`);
    printResult(io, ctx.json, r, () => `Proposal ${id} rejected.`);
  });

  return cmd;
}
