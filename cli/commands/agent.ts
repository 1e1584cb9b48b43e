// tradevault agent status | approve: the daemon's trading key for your account. Approval is signed
// here, with your wallet; the daemon only relays it.
import { Command } from "commander";
import type { AgentStatus } from "../../daemon/http/responses.js";
import { contextFor } from "../context.js";
import { keyValues, printResult, type Io } from "../output.js";
import { withProgress } from "../progress.js";
import { unlockWallet } from "./session.js";


const show = (s: AgentStatus) =>
  keyValues([
    ["agent", s.agentAddress],
    ["approved", s.approved ? "yes" : "no (run: npx tradevault agent approve)"],
    ["valid until", s.validUntil ? new Date(s.validUntil * 1000).toISOString() : "-"],
  ]);

export function agentCommand(io: Io): Command {
  const agent = new Command("agent").description("the daemon's agent key, which trades for you but can never withdraw");

  agent
    .command("status")
    .description("show the agent and whether the exchange has it approved")
    .action(async (_o, cmd: Command) => {
      const ctx = contextFor(cmd, io);
      const s = await ctx.authedApi().request<AgentStatus>("GET", "/api/agent");
      const { approval: _typedData, ...data } = s;
      printResult(io, ctx.json, data, () => show(s));
    });

  agent
    .command("approve")
    .description("sign Hyperliquid's approveAgent with your wallet (locally) and let the daemon relay it")
    .option("-w, --wallet <name>", "the wallet you signed in with")
    .action(async (o: { wallet?: string }, cmd: Command) => {
      const ctx = contextFor(cmd, io);
      const api = ctx.authedApi();
      const s = await api.request<AgentStatus>("GET", "/api/agent");
      if (s.approved || !s.approval) {
        printResult(io, ctx.json, s, () => `Already approved.\n${show(s)}`);
        return;
      }
      const { nonce, typedData } = s.approval;
      const { wallet } = await unlockWallet(ctx, o.wallet);
      const { EIP712Domain: _domain, ...types } = typedData.types;
      const signature = await wallet.signTypedData(typedData.domain, types, typedData.message);
      const r = await withProgress(io, ctx.json, "Approving the agent on the exchange", () =>
        api.request<AgentStatus>("POST", "/api/agent/approve", { nonce, signature }));
      printResult(io, ctx.json, r, () => `Agent approved.\n${show(r)}`);
    });

  return agent;
}
