// tradevault webhooks add | list | remove | test | deliveries: endpoints that hear of your vaults'
// events (signed JSON, or Slack, Discord, Telegram, ntfy messages).
import { Command } from "commander";
import type { Webhook, WebhookDeliveries, WebhookList, WebhookTestResult } from "../../daemon/http/responses.js";
import { addressArg, integerArg } from "../args.js";
import { contextFor } from "../context.js";
import { usageError } from "../errors.js";
import { keyValues, printResult, table, type Io } from "../output.js";

const FORMATS = ["json", "slack", "discord", "telegram", "ntfy"];
const iso = (s: number | null) => (s === null ? "-" : new Date(s * 1000).toISOString());
const idArg = (id: string) => {
  if (!/^wh_[0-9a-f]{16}$/.test(id)) throw usageError(`the webhook id must be wh_ and 16 hex digits, got "${id}"`, "see: npx tradevault webhooks list");
  return id;
};
const csv = (v: string | undefined) => (v === undefined ? undefined : v.split(",").map((s) => s.trim()).filter(Boolean));

const showWebhook = (w: Webhook) =>
  keyValues([
    ["webhook", w.id], ["url", w.url], ["format", w.format], ["events", w.events.join(", ")],
    ["vaults", w.vaults?.join(", ") ?? "all of yours"], ["enabled", w.enabled ? "yes" : `no: ${w.disabledReason ?? ""}`],
    ["failing since", iso(w.failingSince)],
  ]);

export function webhooksCommand(io: Io): Command {
  const cmd = new Command("webhooks").description("endpoints told of your vaults' events (pauses, flattens, closes, ...)");

  cmd.command("add <url>")
    .description("register an endpoint; prints its signing secret once")
    .option("-f, --format <format>", FORMATS.join(" | "), "json")
    .option("-e, --events <types>", "comma-separated event types (default: all but BalanceUpdated and Fill)")
    .option("--vaults <addresses>", "comma-separated vault addresses (default: all of yours)")
    .action(async (url: string, o: { format: string; events?: string; vaults?: string }, c: Command) => {
      if (!FORMATS.includes(o.format)) throw usageError(`--format must be one of ${FORMATS.join(", ")}, got "${o.format}"`);
      const vaults = csv(o.vaults)?.map((v) => addressArg("--vaults", v));
      const ctx = contextFor(c, io);
      const r = await ctx.authedApi().request<{ webhook: Webhook & { secret: string } }>("POST", "/api/webhooks", {
        url, format: o.format, ...(o.events ? { events: csv(o.events) } : {}), ...(vaults ? { vaults } : {}),
      });
      printResult(io, ctx.json, r, () =>
        `${showWebhook(r.webhook)}\nsecret:        ${r.webhook.secret}\nKeep the secret: it is shown only now (json deliveries are signed with it).`);
    });

  cmd.command("list")
    .description("your webhooks")
    .action(async (_o, c: Command) => {
      const ctx = contextFor(c, io);
      const r = await ctx.authedApi().request<WebhookList>("GET", "/api/webhooks");
      printResult(io, ctx.json, r, () => r.webhooks.length === 0 ? "No webhooks (add one: npx tradevault webhooks add <url>)." : table(
        ["ID", "FORMAT", "ENABLED", "EVENTS", "URL"],
        r.webhooks.map((w) => [w.id, w.format, w.enabled ? "yes" : "no", w.events.length, w.url]),
      ));
    });

  cmd.command("remove <id>")
    .description("remove a webhook and its deliveries")
    .action(async (id: string, _o, c: Command) => {
      const ctx = contextFor(c, io);
      await ctx.authedApi().request("DELETE", `/api/webhooks/${idArg(id)}`);
      printResult(io, ctx.json, { id, removed: true }, () => `Webhook ${id} removed.`);
    });

  cmd.command("test <id>")
    .description("send a test message now and show what the endpoint replied")
    .action(async (id: string, _o, c: Command) => {
      const ctx = contextFor(c, io);
      const { result: r } = await ctx.authedApi().request<WebhookTestResult>("POST", `/api/webhooks/${idArg(id)}/test`);
      printResult(io, ctx.json, r, () => keyValues([
        ["delivered", r.ok ? "yes" : "no"], ["status", r.statusCode ?? "-"], ["latency", `${r.latencyMs} ms`],
        ["error", r.error ?? "-"], ["reply", r.reply ?? "-"],
      ]));
    });

  cmd.command("deliveries <id>")
    .description("the webhook's latest deliveries")
    .option("-n, --limit <n>", "how many (1-200)", "20")
    .action(async (id: string, o: { limit: string }, c: Command) => {
      const limit = integerArg("--limit", o.limit, 1, 200);
      const ctx = contextFor(c, io);
      const r = await ctx.authedApi().request<WebhookDeliveries>("GET", `/api/webhooks/${idArg(id)}/deliveries?limit=${limit}`);
      printResult(io, ctx.json, r, () => r.deliveries.length === 0 ? "No deliveries yet." : table(
        ["EVENT", "TYPE", "STATUS", "ATTEMPTS", "CODE", "LATENCY", "DELIVERED", "ERROR"],
        r.deliveries.map((d) => [d.eventId, d.eventType, d.status, d.attempts, d.statusCode ?? "-",
          d.latencyMs === null ? "-" : `${d.latencyMs} ms`, iso(d.deliveredAt), d.error ?? ""]),
      ));
    });

  return cmd;
}
