// Sends the operator's alerts to the --alert-url targets. The operator's URLs are the operator's own,
// so private addresses are allowed (a LAN relay, a local ntfy). A send never blocks the monitor: each
// target gets its own background attempts, a failure is logged and tried again after a backoff, and
// after the last attempt the alert is given up for that target (it stays on /healthz and in the log).
import type { Logger } from "pino";
import { parseAlertTarget, redactUrl, renderMessage, type AlertTarget } from "../alerts/formats.js";
import { postOutbound, type OutboundOptions, type OutboundResult } from "../alerts/outbound.js";

/** Waits before each retry (the first attempt is at once). */
export const ALERT_RETRY_DELAYS_MS = [5_000, 30_000, 120_000];

export interface OperatorAlert {
  /** Stable per condition, e.g. "gas" or "oracle:<daemon>". */
  key: string;
  state: "firing" | "cleared";
  title: string;
  text: string;
  /** The daemon a per-daemon condition is about; null for a shared one. */
  daemon: string | null;
  /** Unix ms: when the condition started. */
  since: number;
  /** Unix ms of this message. */
  time: number;
}

/** The `json` body: the alert as it is, times in Unix seconds. */
export function alertJson(a: OperatorAlert) {
  return { kind: "operator-alert", alert: a.key, state: a.state, title: a.title, text: a.text, daemon: a.daemon, since: Math.floor(a.since / 1000), time: Math.floor(a.time / 1000) };
}

export function createAlertSender(deps: {
  targets: string[];
  log: Logger;
  retryDelaysMs?: number[];
  timeoutMs?: number;
  post?: (url: URL, msg: { headers: Record<string, string>; body: string }, opts: OutboundOptions) => Promise<OutboundResult>;
}) {
  const targets: AlertTarget[] = deps.targets.map((t) => parseAlertTarget(t, "--alert-url"));
  const delays = deps.retryDelaysMs ?? ALERT_RETRY_DELAYS_MS;
  const post = deps.post ?? postOutbound;
  const timers = new Set<NodeJS.Timeout>();
  const inFlight = new Set<Promise<unknown>>();
  let stopped = false;

  function attempt(target: AlertTarget, a: OperatorAlert, n: number): void {
    const title = a.state === "firing" ? a.title : `Resolved: ${a.title}`;
    const rendered = renderMessage(target.format, target.url, { title, text: a.text, json: alertJson(a) });
    const p = post(target.url, rendered, { allowPrivate: true, timeoutMs: deps.timeoutMs }).then((r) => {
      if (!r.error) return;
      const last = n >= delays.length;
      deps.log.warn({ alert: a.key, state: a.state, url: redactUrl(target.url.href), attempt: n + 1, err: r.error }, last ? "alert not delivered; giving up on this target" : "alert not delivered; will retry");
      if (last || stopped) return;
      const timer = setTimeout(() => {
        timers.delete(timer);
        attempt(target, a, n + 1);
      }, delays[n]);
      timer.unref();
      timers.add(timer);
    });
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p));
  }

  return {
    /** Starts sending to every target; returns at once. */
    send(a: OperatorAlert): void {
      if (stopped) return;
      deps.log.warn({ alert: a.key, state: a.state, daemon: a.daemon }, `${a.state === "firing" ? "alert" : "alert resolved"}: ${a.title}: ${a.text}`);
      for (const t of targets) attempt(t, a, 0);
    },
    /** No more retries; waits for attempts in flight (each bounded by its timeout). */
    async stop(): Promise<void> {
      stopped = true;
      for (const t of timers) clearTimeout(t);
      timers.clear();
      await Promise.all([...inFlight]);
    },
  };
}

export type AlertSender = ReturnType<typeof createAlertSender>;
