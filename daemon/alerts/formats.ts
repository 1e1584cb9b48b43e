// What an alert looks like on the wire, per destination: our own signed JSON, or the body a chat
// service's incoming webhook takes as it is, so a user needs no relay between us and their chat.
// Shared by the users' webhooks and the operator's --alert-url targets; pure (no I/O).
import { AppError } from "../errors.js";

export const ALERT_FORMATS = ["json", "slack", "discord", "telegram", "ntfy"] as const;
export type AlertFormat = (typeof ALERT_FORMATS)[number];

export interface AlertMessage {
  /** A short headline ("Vault 0x12…ab paused"). */
  title: string;
  /** The sentence a person reads, saying what happened and, where it helps, what to do. */
  text: string;
  /** The payload of the `json` format. */
  json: unknown;
}

export interface RenderedMessage {
  headers: Record<string, string>;
  body: string;
}

const JSON_TYPE = { "content-type": "application/json" };

export function isAlertFormat(v: unknown): v is AlertFormat {
  return typeof v === "string" && (ALERT_FORMATS as readonly string[]).includes(v);
}

/** The request body and headers for `format` (the signature, when there is one, is added by the sender). */
export function renderMessage(format: AlertFormat, url: URL, msg: AlertMessage): RenderedMessage {
  switch (format) {
    case "json":
      return { headers: JSON_TYPE, body: JSON.stringify(msg.json) };
    case "slack":
      // Slack shows `text` in notifications and `blocks` in the channel.
      return { headers: JSON_TYPE, body: JSON.stringify({
        text: `${msg.title}: ${msg.text}`,
        blocks: [
          { type: "header", text: { type: "plain_text", text: clip(msg.title, 150) } },
          { type: "section", text: { type: "mrkdwn", text: clip(msg.text, 3000) } },
        ],
      }) };
    case "discord":
      return { headers: JSON_TYPE, body: JSON.stringify({
        content: clip(`${msg.title}: ${msg.text}`, 2000),
        embeds: [{ title: clip(msg.title, 256), description: clip(msg.text, 4096) }],
      }) };
    case "telegram":
      return { headers: JSON_TYPE, body: JSON.stringify({ chat_id: telegramChatId(url), text: clip(`${msg.title}\n${msg.text}`, 4096) }) };
    case "ntfy":
      // ntfy takes the message as the plain body; a header gives it a title. Headers must be Latin-1,
      // so the title is made ASCII (the body, UTF-8, keeps the full text).
      return { headers: { "content-type": "text/plain; charset=utf-8", Title: asciiHeader(msg.title) }, body: msg.text };
  }
}

/** The chat_id a Telegram sendMessage URL names in its query (checked when the URL is registered). */
export function telegramChatId(url: URL): string {
  return url.searchParams.get("chat_id") ?? "";
}

export interface AlertTarget {
  format: AlertFormat;
  url: URL;
}

/**
 * `<format>:<url>` (e.g. `slack:https://hooks.slack.com/...`); a bare `http(s)://` URL is `json`.
 * `field` names the input in the error's details.
 */
export function parseAlertTarget(spec: string, field = "url"): AlertTarget {
  const m = /^([a-z]+):(.*)$/s.exec(spec.trim());
  const named = m && isAlertFormat(m[1]) ? m[1] : undefined;
  return { format: named ?? "json", url: parseAlertUrl(named ? m![2] : spec.trim(), named ?? "json", field) };
}

/** An http(s) URL fit for `format`, or INVALID_INPUT naming `field`. */
export function parseAlertUrl(text: string, format: AlertFormat, field = "url"): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw invalid(field, "not a URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw invalid(field, "must be an http or https URL");
  if (url.username || url.password) throw invalid(field, "must not carry a user name or password");
  if (format === "telegram" && !/^-?\d+$|^@\w+$/.test(telegramChatId(url))) {
    throw invalid(field, "a telegram URL names its chat: https://api.telegram.org/bot<token>/sendMessage?chat_id=<id>");
  }
  return url;
}

/** The URL as it may be shown: a Telegram bot token (in the path, /bot<token>/) is hidden. */
export function redactUrl(url: string): string {
  return url.replace(/\/bot[^/?#]+/i, "/bot<redacted>");
}

function invalid(field: string, message: string): AppError {
  return new AppError("INVALID_INPUT", `${field}: ${message}`, { details: [{ field, message }] });
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

function asciiHeader(text: string): string {
  return text.replace(/…/g, "...").replace(/[^\x20-\x7e]/g, "?");
}
