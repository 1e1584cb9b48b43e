// tradevault proposals create | list | show | accept | reject: vault terms both parties sign.
import { Command } from "commander";
import type { Proposal, ProposalAction, ProposalList, ProposalResponse } from "../../daemon/http/responses.js";
import { addressArg, integerArg } from "../args.js";
import { contextFor, type CliContext } from "../context.js";
import { usageError } from "../errors.js";
import { keyValues, printResult, printWarnings, table, type Io } from "../output.js";
import { withProgress } from "../progress.js";
import { canPrompt, promptsOf } from "../prompt.js";
import { BREACH_POLICY_CHOICES, BREACH_POLICY_TEXT, percentBps, TERMS, type Term } from "../terms.js";
import { unlockWallet } from "./session.js";

const iso = (s: number) => new Date(s * 1000).toISOString();
const idArg = (id: string) => integerArg("the proposal id", id, 1);

export const showProposal = (p: Proposal) =>
  keyValues([
    ["proposal", p.id], ["status", p.status], ["investor", p.investor], ["trader", p.trader],
    ["exchange account", p.exchangeAccount], ["initial balance", `${p.initialBalance} USDC`],
    ["max drawdown", `${p.maxDrawdown}%`], ["daily drawdown", `${p.dailyDrawdown}%`], ["deal deadline", iso(p.dealDeadline)],
    ["profit share", `trader ${p.profitShare.trader}% / investor ${p.profitShare.investor}%`],
    ["on a breach", BREACH_POLICY_TEXT[p.breachPolicy]], ["valid until", iso(p.validUntil)],
    ["signed by", [p.signedBy.investor && "investor", p.signedBy.trader && "trader"].filter(Boolean).join(", ") || "nobody yet"],
    ["vault", p.vaultAddress ?? "-"], ...(p.relayError ? [["relay error", p.relayError] as [string, unknown]] : []),
  ]);

type Terms = Record<Term["key"], string>;

/**
 * The seven terms: flags are checked first (exit 2 on a bad one); what is missing is asked on a
 * terminal, after the session is known to be good, so nobody answers seven questions in vain.
 */
async function collectTerms(ctx: CliContext, given: Partial<Terms>): Promise<Terms> {
  for (const t of TERMS) {
    const v = given[t.key];
    const ok = v === undefined || t.check(v);
    if (ok !== true) throw usageError(`${t.flag} ${ok}, got "${v}"`);
  }
  const missing = TERMS.filter((t) => given[t.key] === undefined);
  if (missing.length === 0) return given as Terms;
  if (!canPrompt(ctx.io, ctx.json)) throw usageError(`${missing[0]!.flag} is required`, "pass every term as a flag, or run on a terminal to be asked");
  await ctx.authedApi().request("GET", "/api/account");
  const terms = { ...given };
  const ask = promptsOf(ctx.io);
  for (const t of missing) terms[t.key] = (await ask.input({ message: t.question, required: true, validate: t.check })).trim();
  return terms as Terms;
}

function proposalBody(t: Terms, o: { exchangeAccount?: string; validDays?: string; breachPolicy?: string }, now: number) {
  const traderBps = percentBps(t.traderShare);
  return {
    investor: t.investor, trader: t.trader, initialBalance: t.balance,
    maxDrawdown: Number(t.maxDrawdown), dailyDrawdown: Number(t.dailyDrawdown),
    dealDeadline: now + Math.round(Number(t.days) * 86_400),
    profitShare: { trader: traderBps / 100, investor: (10_000 - traderBps) / 100 },
    ...(o.exchangeAccount ? { exchangeAccount: o.exchangeAccount } : {}),
    ...(o.validDays ? { validUntil: now + integerArg("--valid-days", o.validDays, 1) * 86_400 } : {}),
    ...(o.breachPolicy ? { breachPolicy: o.breachPolicy } : {}),
  };
}

async function signAndAccept(ctx: CliContext, id: number, walletName?: string) {
  const api = ctx.authedApi();
  const { proposal, warnings } = await api.request<ProposalResponse>("GET", `/api/proposals/${id}`);
  // Before anything is signed: the signer must see what the daemon found wrong with the terms.
  printWarnings(ctx.io, warnings);
  const { wallet } = await unlockWallet(ctx, walletName);
  const { EIP712Domain: _d, ...types } = proposal.typedData.types;
  const signature = await wallet.signTypedData(proposal.typedData.domain, types, proposal.typedData.message);
  return withProgress(ctx.io, ctx.json, "Signing and relaying", () =>
    api.request<ProposalAction>("POST", `/api/proposals/${id}/accept`, { signature }));
}

function createCommand(io: Io): Command {
  const create = new Command("create")
    .description("propose vault terms (asks for what is missing on a terminal)")
    .option("--investor <address>").option("--trader <address>")
    .option("--exchange-account <address>", "exchange account the vault trades (default: the investor's)")
    .option("--balance <usdc>", "initial balance in USDC").option("--max-drawdown <percent>").option("--daily-drawdown <percent>")
    .option("--days <n>", "deal length in days").option("--trader-share <percent>", "trader's share of the profit")
    .option("--valid-days <n>", "days the counterparty has to sign (default 7, at most the deal length)")
    .option("--breach-policy <policy>", `what a breach does: ${BREACH_POLICY_CHOICES}`);
  return create.action(async (o, c: Command) => {
    if (o.exchangeAccount !== undefined) addressArg("--exchange-account", o.exchangeAccount);
    if (o.validDays !== undefined) integerArg("--valid-days", o.validDays, 1);
    if (o.breachPolicy !== undefined && !(o.breachPolicy in BREACH_POLICY_TEXT)) {
      throw usageError(`--breach-policy must be one of ${Object.keys(BREACH_POLICY_TEXT).join(", ")}, got "${o.breachPolicy}"`);
    }
    const ctx = contextFor(c, io);
    const terms = await collectTerms(ctx, Object.fromEntries(TERMS.map((t) => [t.key, o[t.key]])) as Partial<Terms>);
    const body = proposalBody(terms, o, Math.floor(Date.now() / 1000));
    const r = await ctx.authedApi().request<ProposalResponse>("POST", "/api/proposals", body);
    printWarnings(io, r.warnings);
    printResult(io, ctx.json, r, () => `${showProposal(r.proposal)}\n\nBoth parties now sign it: npx tradevault proposals accept ${r.proposal.id}`);
  });
}

export function proposalsCommand(io: Io): Command {
  const cmd = new Command("proposals").description("vault proposals: terms an investor and a trader both sign");
  cmd.addCommand(createCommand(io));

  cmd.command("list").description("your proposals").action(async (_o, c: Command) => {
    const ctx = contextFor(c, io);
    const r = await ctx.authedApi().request<ProposalList>("GET", "/api/proposals");
    printResult(io, ctx.json, r, () =>
      table(["ID", "STATUS", "INVESTOR", "TRADER", "BALANCE", "SIGNED", "VAULT"], r.proposals.map((p) => [
        p.id, p.status, p.investor, p.trader, p.initialBalance,
        `${p.signedBy.investor ? "I" : "-"}${p.signedBy.trader ? "T" : "-"}`, p.vaultAddress,
      ])));
  });

  cmd.command("show <id>").description("one proposal").action(async (id: string, _o, c: Command) => {
    const n = idArg(id);
    const ctx = contextFor(c, io);
    const r = await ctx.authedApi().request<ProposalResponse>("GET", `/api/proposals/${n}`);
    printWarnings(io, r.warnings);
    printResult(io, ctx.json, r, () => showProposal(r.proposal));
  });

  cmd.command("accept <id>").description("sign the terms with your wallet (locally); the vault deploys once both have")
    .option("-w, --wallet <name>").action(async (id: string, o: { wallet?: string }, c: Command) => {
      const n = idArg(id);
      const ctx = contextFor(c, io);
      const r = await signAndAccept(ctx, n, o.wallet);
      printResult(io, ctx.json, r, () => `${showProposal(r.proposal)}${r.proposal.vaultAddress ? `\n\nVault deployed at ${r.proposal.vaultAddress}.` : ""}`);
    });

  cmd.command("reject <id>").description("turn a proposal down").action(async (id: string, _o, c: Command) => {
    const n = idArg(id);
    const ctx = contextFor(c, io);
    const r = await ctx.authedApi().request<ProposalAction>("POST", `/api/proposals/${n}/reject`);
    printResult(io, ctx.json, r, () => `Proposal ${n} rejected.`);
  });

  return cmd;
}
