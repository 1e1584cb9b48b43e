// alerts: webhooks under a mass breach. One daemon (embedded defaults) with `vaults` vaults and two
// json webhooks per vault's investor, every event subscribed; the receivers in a process of their
// own. First the oracle's cycle time with every receiver answering (the baseline) and with `hanging`
// of them holding their requests unanswered, in alternating rounds: a dead endpoint must not slow the
// oracle. Then every vault breaches in one cycle, with the same receivers hanging, and each Paused
// delivery to an answering receiver is timed from the moment its event was stored.
import { fmt, mib, type BenchResult } from "./lib/report.js";
import { median, percentile } from "./lib/stats.js";
import { startWorker, type ProcessUsage } from "./lib/worker-client.js";
import type { Receipt } from "./servers/webhook-receivers.js";

export interface AlertsSize {
  vaults: number;
  hooksPerVault: number;
  /** Receivers that hang (the first ones of each vault's pair, from the first vault on). */
  hanging: number;
  /** Alternating rounds of cycles, each `cycles` long, answering and hanging. */
  rounds: number;
  cycles: number;
}

export const ALERTS_FULL: AlertsSize = { vaults: 100, hooksPerVault: 2, hanging: 50, rounds: 3, cycles: 3 };

const waitFor = async <T>(read: () => Promise<T | undefined>, timeoutMs: number, what: string): Promise<T> => {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
};

export async function alerts(size: AlertsSize = ALERTS_FULL): Promise<BenchResult> {
  const started = Date.now();
  const receivers = await startWorker(new URL("./servers/webhook-receivers.ts", import.meta.url).pathname);
  const lab = await startWorker(new URL("./servers/alerts-lab.ts", import.meta.url).pathname);
  const hooks = size.vaults * size.hooksPerVault;
  const hangingHooks = Array.from({ length: size.hanging }, (_, i) => i * size.hooksPerVault);
  const answering: number[] = [];
  const hanging: number[] = [];
  let latencies: number[] = [];
  let usage: ProcessUsage;
  let setupS = 0;
  try {
    const urls = await receivers.call<string[]>("start", hooks);
    await lab.call("start");
    const t = Date.now();
    await lab.call("setUp", size.vaults, urls, size.hooksPerVault);
    setupS = (Date.now() - t) / 1000;
    for (let r = 0; r < size.rounds; r++) {
      for (const [mode, into] of [["answering", answering], ["hanging", hanging]] as const) {
        await receivers.call("hang", mode === "hanging" ? hangingHooks : []);
        for (let c = 0; c < size.cycles; c++) into.push(await lab.call<number>("cycle"));
      }
    }
    await receivers.call("hang", hangingHooks);
    const pausedAt = await lab.call<Record<string, number>>("breach");
    const hangs = new Set(hangingHooks);
    const expected = Object.keys(pausedAt).length * size.hooksPerVault - hangingHooks.filter((h) => Math.floor(h / size.hooksPerVault) < size.vaults).length;
    const receipts = await waitFor(async () => {
      const got = (await receivers.call<Receipt[]>("receipts", "Paused")).filter((x) => !hangs.has(x.hook));
      return got.length >= expected ? got : undefined;
    }, 120_000, `${expected} Paused deliveries to the answering receivers`);
    latencies = receipts.map((x) => x.atMs - pausedAt[x.vault]!).filter((ms) => Number.isFinite(ms));
    await receivers.call("hang", []);
  } finally {
    usage = await lab.stop();
    await receivers.stop();
  }
  const cycleMs = median(answering);
  const hangMs = median(hanging);
  return {
    name: "alerts",
    setup: `${size.vaults} vaults, ${size.hooksPerVault} json webhooks each (${hooks}), ${size.hanging} hanging; ${size.rounds} x ${size.cycles} cycles each way`,
    figures: [
      { label: `Paused event stored to delivery received, p50 (${latencies.length} deliveries, ${size.hanging} receivers hanging)`, value: percentile(latencies, 50), unit: "ms", target: "< 2000 ms", met: percentile(latencies, 50) < 2_000 },
      { label: "Paused event stored to delivery received, p99", value: percentile(latencies, 99), unit: "ms", target: "< 2000 ms", met: percentile(latencies, 99) < 2_000 },
      {
        label: `oracle cycle, ${size.vaults} vaults, ${size.hanging} receivers hanging (baseline: all answering)`, value: hangMs, unit: "ms", baseline: cycleMs,
        target: "<= 1.2x", met: hangMs <= 1.2 * cycleMs,
      },
    ],
    peakRssMb: mib(usage.maxRssKb),
    notes: [
      `Set-up (vaults, agents, webhooks, a 3x BTC long per vault) took ${fmt(setupS)} s.`,
      `Cycle times (ms) answering: ${answering.map((m) => fmt(m)).join(", ")}; with ${size.hanging} hanging: ${hanging.map((m) => fmt(m)).join(", ")}. Each cycle writes every vault's reading, and every BalanceUpdated event is a delivery to both of its investor's webhooks (${hooks} a cycle): a hanging endpoint holds only its own queue (one delivery at a time, each given up after 10 s).`,
      `Breach: BTC down 10% and one cycle paused ${size.vaults} vaults; each Paused event's time is when a 10-ms poll in the daemon's process first saw it stored, each delivery's when the receivers' process had its whole body (the same machine's clock). Latencies (ms): min ${fmt(Math.min(...latencies))}, p50 ${fmt(percentile(latencies, 50))}, p99 ${fmt(percentile(latencies, 99))}, max ${fmt(Math.max(...latencies))}.`,
    ],
    seconds: (Date.now() - started) / 1000,
  };
}
