// Alerts: the user's webhooks. Add one (its signing secret is shown once, here), test it, see its
// deliveries, remove it. Everything else (formats, filters, retries) is the daemon's; see the README.
import type { Webhook, WebhookDeliveries, WebhookList, WebhookTestResult } from "../../../daemon/http/responses.js";
import { VAULT_EVENT_TYPES } from "../../../daemon/events/event-types.js";
import { act, notice, type App } from "../app.js";
import { del, get, post } from "../api.js";
import { field, formValues, h, input, replace, select, table } from "../dom.js";
import { when } from "../format.js";

const FORMATS: [string, string][] = [
  ["json", "json (signed)"], ["slack", "Slack"], ["discord", "Discord"], ["telegram", "Telegram"], ["ntfy", "ntfy"],
];

export async function alertsView(app: App, view: HTMLElement): Promise<void> {
  const list = await get<WebhookList>("/api/webhooks");
  const details = h("div", { id: "webhook-details" });
  replace(view, addCard(app), listCard(app, list.webhooks, details), details);
}

function addCard(app: App): HTMLElement {
  const form = h("form", { id: "webhook-form", class: "grid" },
    field("Endpoint URL", input("url", { required: true, placeholder: "https://hooks.slack.com/services/…" })),
    field("Format", select("format", FORMATS)),
    field("Events (comma-separated; empty: all but BalanceUpdated and Fill)", input("events", { placeholder: "Paused,Flattened,Closed" })),
    field("Vaults (comma-separated; empty: all of yours)", input("vaults", { placeholder: "0x…" })),
    h("button", { type: "submit", id: "add-webhook" }, "Add webhook"));
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const v = formValues(form);
    void act(form.querySelector("button"), async () => {
      const csv = (s: string | undefined) => (s ?? "").split(",").map((x) => x.trim()).filter(Boolean);
      const body: Record<string, unknown> = { url: v.url, format: v.format };
      if (csv(v.events).length) body.events = csv(v.events);
      if (csv(v.vaults).length) body.vaults = csv(v.vaults);
      const r = await post<{ webhook: Webhook & { secret: string } }>("/api/webhooks", body);
      notice(`Webhook ${r.webhook.id} added. Its signing secret, shown only now: ${r.webhook.secret}`);
      app.refresh();
    });
  });
  return h("section", { class: "card" }, h("h2", {}, "Add a webhook"),
    h("p", { class: "hint" }, `Sent when an event of your vaults is recorded (${VAULT_EVENT_TYPES.join(", ")}), and when the other party of a proposal signs or your vault's agent key is about to expire. Without events named, every one but BalanceUpdated and Fill.`), form);
}

function listCard(app: App, hooks: Webhook[], details: HTMLElement): HTMLElement {
  const rows = hooks.map((w) => [
    w.id, w.format, h("span", { class: "wrap" }, w.url), h("span", { class: "wrap" }, w.events.join(", ")),
    w.vaults?.length ? `${w.vaults.length} vault(s)` : "all",
    w.enabled ? (w.failingSince ? `failing since ${when(w.failingSince)}` : "on") : `off: ${w.disabledReason ?? ""}`,
    actions(app, w, details),
  ]);
  return h("section", { class: "card" }, h("h2", {}, "Webhooks"),
    table(["Id", "Format", "URL", "Events", "Vaults", "State", ""], rows, "No webhooks yet.", { id: "webhooks", "data-stack": true }));
}

function actions(app: App, w: Webhook, details: HTMLElement): HTMLElement {
  const test = h("button", { type: "button", class: "small", "data-test": w.id }, "Test");
  test.addEventListener("click", () => act(test, async () => {
    const { result: r } = await post<WebhookTestResult>(`/api/webhooks/${w.id}/test`);
    notice(r.ok ? `Delivered: ${r.statusCode} in ${r.latencyMs} ms.` : `Not delivered: ${r.error ?? r.statusCode}.`);
  }));
  const show = h("button", { type: "button", class: "small secondary" }, "Deliveries");
  show.addEventListener("click", () => act(show, async () => {
    const { deliveries } = await get<WebhookDeliveries>(`/api/webhooks/${w.id}/deliveries?limit=50`);
    replace(details, h("section", { class: "card" }, h("h2", {}, `Deliveries of ${w.id}`),
      table(["Event", "Type", "Status", "Attempts", "Code", "Latency", "Delivered", "Error"], deliveries.map((d) => [
        String(d.eventId), d.eventType, d.status, String(d.attempts), d.statusCode === null ? "-" : String(d.statusCode),
        d.latencyMs === null ? "-" : `${d.latencyMs} ms`, d.deliveredAt === null ? "-" : when(d.deliveredAt), d.error ?? "",
      ]), "No deliveries yet.", { "data-stack": true })));
  }));
  const remove = h("button", { type: "button", class: "small secondary", "data-remove": w.id }, "Remove");
  remove.addEventListener("click", () => act(remove, async () => {
    await del(`/api/webhooks/${w.id}`);
    app.refresh();
  }));
  return h("span", { class: "row-actions" }, test, show, remove);
}
