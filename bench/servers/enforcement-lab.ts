// Daemon side of the breach benchmark's enforcement figures: how soon a paused vault's exchange
// account holds its breach policy. Two sets of vaults, `perPolicy` of each policy in each set, every
// vault long with two resting orders: set A on BTC is breached while the exchange answers HTTP 500 to
// every action for `outageMs`, then measured from the moment it answers again; set B on ETH is
// breached with the exchange up and measured from the pause. Then the exchange weight enforcement
// spends per paused vault per minute, once every vault holds, counted from the sim's request log
// (openOrders, and the account reads, actions and lookups of enforcement's runs).
import { Wallet } from "ethers";
import type { DaemonWithParts as Daemon } from "../../daemon/main.js";
import { BREACH_POLICY_TABLE } from "../../daemon/vaults/breach-policies.js";
import { approveAgent, createVaults, hostDaemon, signIn } from "../lib/daemon-host.js";

export interface EnforceResult {
  /** Per policy: ms from the exchange answering again to the vault holding its policy (set A). */
  afterOutage: Record<string, number[]>;
  /** Per policy: ms from the vault's pause to it holding its policy, the exchange up (set B). */
  exchangeUp: Record<string, number[]>;
  /** Weight a paused vault's enforcement spent per minute during the outage (set A; the probing included). */
  outageWeightPerVaultMinute: number;
  /** Weight a holding paused vault's enforcement spends per minute (re-checks). */
  holdingWeightPerVaultMinute: number;
  holdMinutes: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Request weight of what enforcement sends (frontendOpenOrders 20, clearinghouseState/orderStatus 2, an action 1). */
function enforcementWeight(body: any): number {
  if (body?.type === "openOrders" || body?.type === "frontendOpenOrders") return 20;
  if (body?.type === "orderStatus") return 2;
  if (body?.action?.type === "cancel" || body?.action?.type === "order") return 1;
  return 0;
}

/** Counts the weight of requests the sim logs from now on (sampled: the log keeps the last 1000). */
function weightMeter(d: Daemon) {
  let last = d.sim!.requests.at(-1)?.id ?? 0;
  let total = 0;
  const timer = setInterval(() => {
    for (const r of d.sim!.requests) {
      if (r.id <= last) continue;
      last = r.id;
      total += enforcementWeight(r.body);
    }
  }, 100);
  return { stop: () => (clearInterval(timer), total) };
}

async function place(url: string, token: string, vault: string, body: Record<string, unknown>) {
  const r = await fetch(`${url}/api/trade`, {
    method: "POST", headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
    body: JSON.stringify({ side: "buy", vaultAddress: vault, ...body }),
  });
  if (r.status !== 200) throw new Error(`vault order: ${r.status} ${await r.text()}`);
}

export function serve() {
  return {
    async run(opts: { oracleIntervalS: number; perPolicy: number; outageMs: number; holdMinutes: number }): Promise<EnforceResult> {
      const hosted = await hostDaemon({
        startOracle: true,
        config: { oracleInterval: opts.oracleIntervalS, staleAfter: Math.max(120, 3 * opts.oracleIntervalS), simFeed: "static" },
      });
      const d = hosted.daemon;
      try {
        d.sim!.setPrice("BTC", "60000");
        d.sim!.setPrice("ETH", "3000");
        const trader = Wallet.createRandom();
        const token = await signIn(d.url, trader);
        const sets: Record<"A" | "B", Array<{ vault: string; policy: string }>> = { A: [], B: [] };
        for (const set of ["A", "B"] as const) {
          for (const p of BREACH_POLICY_TABLE) {
            const { addresses, investors } = await createVaults(d, trader, opts.perPolicy, {
              usdc: 10_000, maxDrawdownBps: 1_000, dailyDrawdownBps: 500, breachPolicy: p.code,
            });
            for (const inv of investors) await approveAgent(d.url, await signIn(d.url, inv), inv);
            sets[set].push(...addresses.map((vault) => ({ vault, policy: p.name })));
          }
        }
        await d.oracle.cycle();
        for (const { vault } of sets.A) {
          await place(d.url, token, vault, { symbol: "BTC", size: "0.1" });
          for (const price of ["40000", "41000"]) await place(d.url, token, vault, { symbol: "BTC", size: "0.01", price });
        }
        for (const { vault } of sets.B) {
          await place(d.url, token, vault, { symbol: "ETH", size: "2" });
          for (const price of ["2000", "2100"]) await place(d.url, token, vault, { symbol: "ETH", size: "0.1", price });
        }
        const row = (vault: string) => d.store.db.selectFrom("vaults").selectAll().where("address", "=", vault).executeTakeFirstOrThrow();
        const holds = async (vault: string) => d.enforcement.view(await row(vault))?.state === "holds";

        // Set A: an outage around the breach.
        d.sim!.faults.next({ kind: "http500", endpoint: "exchange", count: 100_000 });
        d.sim!.setPrice("BTC", "53000");
        await d.oracle.cycle();
        for (const { vault } of sets.A) if (!(await row(vault)).paused) throw new Error(`vault ${vault} did not pause`);
        const outageMeter = weightMeter(d);
        await sleep(opts.outageMs);
        const outageWeight = outageMeter.stop();
        d.sim!.faults.clear();
        const back = Date.now();
        const afterOutage: Record<string, number[]> = {};
        const waiting = new Set(sets.A.map((x) => x.vault));
        while (waiting.size > 0 && Date.now() - back < 5 * 60_000) {
          for (const x of sets.A) {
            if (!waiting.has(x.vault) || !(await holds(x.vault))) continue;
            waiting.delete(x.vault);
            (afterOutage[x.policy] ??= []).push(Date.now() - back);
          }
          await sleep(20);
        }
        if (waiting.size > 0) throw new Error(`${waiting.size} vaults did not hold within 5 minutes of the outage`);

        // Set B: the exchange up; from the pause (the enforcement row's start) to holding.
        d.sim!.setPrice("ETH", "2600");
        await d.oracle.cycle();
        const exchangeUp: Record<string, number[]> = {};
        for (const x of sets.B) {
          const deadline = Date.now() + 60_000;
          while (!(await holds(x.vault))) {
            if (Date.now() > deadline) throw new Error(`vault ${x.vault} did not hold with the exchange up`);
            await sleep(20);
          }
          const e = await d.store.db.selectFrom("vault_enforcement").selectAll().where("vault", "=", x.vault).executeTakeFirstOrThrow();
          (exchangeUp[x.policy] ??= []).push(e.since - e.started_at);
        }

        // Holding: re-checks only.
        const holdMeter = weightMeter(d);
        await sleep(opts.holdMinutes * 60_000);
        const holdWeight = holdMeter.stop();
        const vaults = sets.A.length + sets.B.length;
        return {
          afterOutage, exchangeUp, holdMinutes: opts.holdMinutes,
          outageWeightPerVaultMinute: outageWeight / sets.A.length / (opts.outageMs / 60_000),
          holdingWeightPerVaultMinute: holdWeight / vaults / opts.holdMinutes,
        };
      } finally {
        await hosted.close();
      }
    },
  };
}
