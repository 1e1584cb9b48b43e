// tradevault events: follow your vaults' events live (Server-Sent Events), resuming with --since.
import { Command } from "commander";
import { contextFor } from "../context.js";
import { CliError, EXIT } from "../errors.js";
import type { Io } from "../output.js";
import { readSse } from "../sse.js";
import { integerArg } from "../args.js";

export function eventsCommand(io: Io): Command {
  return new Command("events")
    .description("follow live events of your vaults (BalanceUpdated, Paused, Closed, fills, ...); Ctrl-C to stop")
    .option("--since <id>", "resume after this event id")
    .option("--limit <n>", "stop after this many events")
    .action(async (o: { since?: string; limit?: string }, c: Command) => {
      const limit = o.limit === undefined ? Infinity : integerArg("--limit", o.limit, 1);
      if (o.since !== undefined) integerArg("--since", o.since);
      const ctx = contextFor(c, io);
      const saved = ctx.sessions.get(ctx.url);
      if (!saved) throw new CliError("NOT_SIGNED_IN", `not signed in to ${ctx.url}`, EXIT.NOT_SIGNED_IN, "run: tradevault login");
      const controller = new AbortController();
      process.once("SIGINT", () => controller.abort());
      let res: Response;
      try {
        res = await fetch(`${ctx.url}/api/events`, {
          headers: { Authorization: `Bearer ${saved.token}`, Accept: "text/event-stream", ...(o.since ? { "Last-Event-ID": o.since } : {}) },
          signal: controller.signal,
        });
      } catch {
        throw new CliError("DAEMON_UNREACHABLE", `cannot reach tradevaultd at ${ctx.url}`, EXIT.UNREACHABLE);
      }
      if (res.status === 401) throw new CliError("UNAUTHENTICATED", "the session has ended", EXIT.NOT_SIGNED_IN, "run: tradevault login");
      if (!res.ok || !res.body) throw new CliError(`HTTP_${res.status}`, `the event stream failed (HTTP ${res.status})`);
      let seen = 0;
      try {
        for await (const m of readSse(res.body as unknown as AsyncIterable<Uint8Array>)) {
          const e = JSON.parse(m.data) as Record<string, unknown>;
          // --json is NDJSON here: one compact object per line, flushed as each event arrives.
          io.stdout.write(ctx.json ? `${JSON.stringify(e)}\n` : `${new Date(Number(e.time) * 1000).toISOString()}  #${e.id}  ${e.type}  ${e.vault}\n`);
          if (++seen >= limit) {
            controller.abort();
            return;
          }
        }
      } catch (err) {
        if ((err as Error).name !== "AbortError") throw err;
      }
    });
}
