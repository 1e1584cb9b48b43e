// tradevault events: follow your vaults' events live (Server-Sent Events), resuming with --since.
// Each is told in a sentence by the describer the dashboard uses too; --json keeps the API's objects.
import { Command } from "commander";
import type { StreamEvent, VaultDetailResponse } from "../../daemon/http/responses.js";
// Plain modules with no imports of their own but each other: the one describer of an event, the one list of types.
import { fromStream, narrator, type EventContext } from "../../daemon/events/describe-event.js";
import { VAULT_EVENT_TYPES } from "../../daemon/events/event-types.js";
import { shortAddress } from "../../daemon/lib/figures.js";
import { CLIENT_HEADERS, type ApiClient } from "../api-client.js";
import { contextFor } from "../context.js";
import { CliError, EXIT } from "../errors.js";
import type { Io } from "../output.js";
import { readSse } from "../sse.js";
import { integerArg } from "../args.js";

/** Each vault's limits and parties, read once per vault the first time one of its events arrives. */
function vaultFacts(api: ApiClient) {
  const known = new Map<string, Promise<EventContext["vault"]>>();
  return (vault: string) => {
    if (!known.has(vault)) {
      known.set(vault, api.request<VaultDetailResponse>("GET", `/api/vaults/${vault}`).then((r) => r.vault, () => undefined));
    }
    return known.get(vault)!;
  };
}

export function eventsCommand(io: Io): Command {
  return new Command("events")
    .description("follow live events of your vaults (balance updates, pauses, closes, fills, ...); Ctrl-C to stop")
    .addHelpText("after", `\nEvent types: ${VAULT_EVENT_TYPES.join(", ")}.`)
    .option("--since <id>", "resume after this event id")
    .option("--limit <n>", "stop after this many events")
    .action(async (o: { since?: string; limit?: string }, c: Command) => {
      const limit = o.limit === undefined ? Infinity : integerArg("--limit", o.limit, 1);
      if (o.since !== undefined) integerArg("--since", o.since);
      const ctx = contextFor(c, io);
      const token = await ctx.sessionToken();
      const controller = new AbortController();
      process.once("SIGINT", () => controller.abort());
      let res: Response;
      try {
        res = await fetch(`${ctx.url}/api/events`, {
          headers: { ...CLIENT_HEADERS, Authorization: `Bearer ${token}`, Accept: "text/event-stream", ...(o.since ? { "Last-Event-ID": o.since } : {}) },
          signal: controller.signal,
        });
      } catch {
        throw new CliError("DAEMON_UNREACHABLE", `cannot reach tradevaultd at ${ctx.url}`, EXIT.UNREACHABLE);
      }
      if (res.status === 401) throw new CliError("UNAUTHENTICATED", "the session has ended", EXIT.NOT_SIGNED_IN, "run: npx tradevault login");
      if (!res.ok || !res.body) throw new CliError(`HTTP_${res.status}`, `the event stream failed (HTTP ${res.status})`);
      let seen = 0;
      const tell = narrator();
      const facts = vaultFacts(ctx.authedApi());
      try {
        for await (const m of readSse(res.body as unknown as AsyncIterable<Uint8Array>)) {
          const raw: StreamEvent = JSON.parse(m.data);
          const e = fromStream(raw);
          // --json is NDJSON here: one compact object per line, flushed as each event arrives.
          io.stdout.write(ctx.json ? `${JSON.stringify(raw)}\n`
            : `${new Date(e.time * 1000).toISOString()}  #${e.id}  ${shortAddress(e.vault)}  ${tell(e, await facts(e.vault)).sentence}\n`);
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
