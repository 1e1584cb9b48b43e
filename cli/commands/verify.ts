// tradevault verify <vault>: checks a vault's money invariants. Through the daemon (signed in as a
// party) every invariant, with the daemon's own records; with --rpc-url and --exchange, no daemon and
// no sign-in: the chain and the exchange's public info endpoint alone. Exit 0 when every checked
// invariant holds, 1 when one breaks, 2 when the records could not be read.
import { Command } from "commander";
import type { VerificationResponse } from "../../daemon/http/responses.js";
import { chainRecordsFrom } from "../../daemon/verify/chain-records.js";
import { exchangeRecordsFrom } from "../../daemon/verify/exchange-records.js";
import { verifyVault } from "../../daemon/verify/verify-vault.js";
import { addressArg, integerArg } from "../args.js";
import { contextFor } from "../context.js";
import { ExitCode, usageError } from "../errors.js";
import { printResult, table, type Io } from "../output.js";

const EXIT_BROKEN = 1;
const EXIT_UNREADABLE = 2;

export function verificationText(v: VerificationResponse): string {
  const how = v.mode === "daemon" ? "through the daemon (every invariant)" : "from the chain and the exchange alone (no daemon records)";
  const head = `Vault ${v.vault}, checked ${how}: ${v.outcome}${v.reason ? ` (${v.reason})` : ""}${v.note ? `\nNote: ${v.note}` : ""}`;
  if (v.invariants.length === 0) return head;
  const rows = v.invariants.map((i) => [i.invariant, i.status, i.summary]);
  const breaks = v.invariants.filter((i) => i.break).map((i) => `${i.invariant} broken at ${i.break!.what}: expected ${i.break!.expected}, actual ${i.break!.actual}`);
  return [head, "", table(["INVARIANT", "STATUS", "WHAT"], rows), ...(breaks.length ? ["", ...breaks] : [])].join("\n");
}

export function verifyCommand(io: Io): Command {
  return new Command("verify").argument("<vault>", "the vault's address")
    .description("check a vault's money invariants against the chain's events and the exchange's records (docs/vaults.md, Checking a vault)")
    .option("--rpc-url <url>", "read the chain here instead of through the daemon (no sign-in; needs --exchange)")
    .option("--exchange <url>", "the exchange's API base, e.g. https://api.hyperliquid.xyz (its /info endpoint is read)")
    .option("--from-block <n>", "the vault's creation block or earlier, where its VaultCreated event is looked for (default 0)")
    .option("--log-range <n>", "blocks per eth_getLogs call (HyperEVM answers at most 50)")
    .action(async (vault: string, o: { rpcUrl?: string; exchange?: string; fromBlock?: string; logRange?: string }, c: Command) => {
      const address = addressArg("the vault address", vault);
      const ctx = contextFor(c, io);
      let v: VerificationResponse;
      if (o.rpcUrl || o.exchange) {
        if (!o.rpcUrl || !o.exchange) throw usageError("--rpc-url and --exchange go together: the chain and the exchange are both read");
        const chain = chainRecordsFrom(o.rpcUrl, {
          fromBlock: o.fromBlock === undefined ? undefined : integerArg("--from-block", o.fromBlock),
          pageSize: o.logRange === undefined ? undefined : integerArg("--log-range", o.logRange, 1),
        });
        try {
          v = await verifyVault(address, { chain: chain.read, exchange: exchangeRecordsFrom(`${o.exchange.replace(/\/+$/, "")}/info`) }, Math.floor(Date.now() / 1000));
        } finally {
          chain.close();
        }
      } else {
        v = (await ctx.authedApi().request<{ verification: VerificationResponse }>("GET", `/api/vaults/${address}/verify`)).verification;
      }
      printResult(io, ctx.json, { verification: v }, () => verificationText(v));
      if (v.outcome === "broken") throw new ExitCode(EXIT_BROKEN);
      if (v.outcome === "unreadable") throw new ExitCode(EXIT_UNREADABLE);
    });
}
