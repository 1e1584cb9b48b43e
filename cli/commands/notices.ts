// tradevault notices: what the daemon told you rather than your vaults' parties (a proposal to sign,
// an agent key expiring, a stop on your own account that did not fill, a liquidation), newest first,
// each in the sentence the dashboard and the webhooks use.
import { Command } from "commander";
import type { UserNoticesPage } from "../../daemon/http/responses.js";
import { describeNotice, type DescribableNotice } from "../../daemon/events/describe-notice.js";
import { integerArg } from "../args.js";
import { contextFor } from "../context.js";
import { printResult, table, type Io } from "../output.js";

export function noticesCommand(io: Io): Command {
  return new Command("notices")
    .description("notices addressed to you, newest first (stops that did not fill, liquidations, agent keys, proposals)")
    .option("--limit <n>", "at most this many (1-1000)", "20")
    .option("--offset <n>", "skip this many", "0")
    .action(async (o: { limit: string; offset: string }, c: Command) => {
      const limit = integerArg("--limit", o.limit, 1, 1000);
      const offset = integerArg("--offset", o.offset, 0);
      const ctx = contextFor(c, io);
      const page = await ctx.authedApi().request<UserNoticesPage>("GET", `/api/notices?limit=${limit}&offset=${offset}`);
      printResult(io, ctx.json, page, () => {
        const rows = page.notices.map((n) => {
          const d = describeNotice({ type: n.type, user: "", data: n.data } as DescribableNotice);
          return [new Date(n.time * 1000).toISOString().replace(/\.\d+Z$/, "Z"), d.title, d.sentence];
        });
        const more = page.hasMore ? `\n(${page.total} in all: --offset ${offset + page.notices.length} for more)` : "";
        return `${table(["time", "notice", "what"], rows)}${more}`;
      });
    });
}
