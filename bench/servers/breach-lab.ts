// Daemon side of the breach benchmark: a daemon (oracle loop on, price stream on or off) where each
// run builds a vault holding a 3x BTC long under a 5% daily limit, then walks the sim's BTC price
// down 0.1% every `stepMs` until the vault is paused, and says when the true drawdown (the sim's own
// account value) crossed the limit, when the Paused event was stored, and the drawdown it paused at.
import { Wallet } from "ethers";
import { sql } from "kysely";
import { unpackEventData } from "../../daemon/db/event-data.js";
import { approveAgent, createVaults, hostDaemon, signIn, type HostedDaemon } from "../lib/daemon-host.js";

export interface BreachRun {
  /** Milliseconds from the price step that crossed the limit to the stored Paused event. */
  latencyMs: number;
  /** Daily drawdown the contract paused at, minus the 5% limit, in percentage points. */
  overshootPoints: number;
}

const LIMIT_BPS = 500;

export function serve() {
  let hosted: HostedDaemon | undefined;
  const d = () => hosted!.daemon;

  async function pausedAt(vault: string): Promise<{ at: number; dailyBps: number } | undefined> {
    const rows = await sql<{ type: string; data: string }>`select e.type, e.data from vault_events e join vaults v on v.num = e.vault_num
      where v.address = ${vault} and e.type in ('Paused', 'BalanceUpdated') order by e.id desc limit 2`.execute(d().store.db);
    if (rows.rows[0]?.type !== "Paused") return undefined;
    const update = rows.rows.find((r) => r.type === "BalanceUpdated");
    return { at: Date.now(), dailyBps: update ? Number(unpackEventData(update.type, update.data).dailyDrawdownBps) : NaN };
  }

  return {
    async start(opts: { priceStream: boolean; oracleIntervalS: number }): Promise<void> {
      hosted = await hostDaemon({
        startOracle: true,
        config: { priceStream: opts.priceStream, oracleInterval: opts.oracleIntervalS, staleAfter: Math.max(120, 2 * opts.oracleIntervalS) },
      });
    },

    async run(stepMs: number, timeoutMs: number): Promise<BreachRun> {
      const { url } = d();
      d().sim!.setPrice("BTC", "60000");
      const trader = Wallet.createRandom();
      const token = await signIn(url, trader);
      const { addresses: [vault], investors: [investor] } = await createVaults(d(), trader, 1, { usdc: 10_000, maxDrawdownBps: 1_000, dailyDrawdownBps: LIMIT_BPS });
      await approveAgent(url, await signIn(url, investor!), investor!);
      await d().oracle.cycle(); // the vault's first reading: it may trade, and the revaluation has its base
      const buy = await fetch(`${url}/api/trade`, {
        method: "POST", headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
        body: JSON.stringify({ symbol: "BTC", side: "buy", size: "0.5", vaultAddress: vault }),
      });
      if (buy.status !== 200) throw new Error(`vault order: ${buy.status} ${await buy.text()}`);
      const start = (await d().exchange.accountState(investor!.address)).accountValue;
      const floor = Number(start) * (1 - LIMIT_BPS / 10_000); // display-only arithmetic for the crossing time
      let price = 60_000;
      let crossedAt: number | undefined;
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        price *= 0.999;
        d().sim!.setPrice("BTC", String(Math.round(price)));
        const stepAt = Date.now();
        if (crossedAt === undefined && Number((await d().exchange.accountState(investor!.address)).accountValue) <= floor) crossedAt = stepAt;
        const paused = await pausedAt(vault!);
        if (paused && crossedAt !== undefined) return { latencyMs: paused.at - crossedAt, overshootPoints: (paused.dailyBps - LIMIT_BPS) / 100 };
        await new Promise((r) => setTimeout(r, Math.max(0, stepMs - (Date.now() - stepAt))));
      }
      throw new Error(`no pause within ${timeoutMs} ms (crossed: ${crossedAt !== undefined})`);
    },

    /**
     * Exchange weight per vault per minute at `vaults` vaults, each holding a small BTC long, over
     * `minutes` of the sim's random walk (one tick a second), read from the daemon's metered limiter
     * (the figure GET /metrics exports as tradevault_exchange_weight_spent_total). Set-up weight (agents,
     * orders, first readings) is left out: the count starts after the first full cycle.
     */
    async weight(opts: { priceStream: boolean; vaults: number; minutes: number }): Promise<{ perVaultPerMinute: number; earlyWrites: number }> {
      const weighed = await hostDaemon({
        startOracle: true,
        config: { priceStream: opts.priceStream, oracleInterval: 60, staleAfter: 120, metricsPort: 0, simFeed: "random" },
      });
      try {
        const wd = weighed.daemon;
        const trader = Wallet.createRandom();
        const token = await signIn(wd.url, trader);
        const { addresses, investors } = await createVaults(wd, trader, opts.vaults, { usdc: 10_000 });
        for (let i = 0; i < addresses.length; i++) {
          await approveAgent(wd.url, await signIn(wd.url, investors[i]!), investors[i]!);
          const buy = await fetch(`${wd.url}/api/trade`, {
            method: "POST", headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
            body: JSON.stringify({ symbol: "BTC", side: "buy", size: "0.01", vaultAddress: addresses[i] }),
          });
          if (buy.status !== 200 && buy.status !== 503) throw new Error(`vault order: ${buy.status} ${await buy.text()}`);
        }
        await wd.oracle.cycle();
        const spent = async () => {
          const text = await (await fetch(wd.metricsUrl!)).text();
          return Number(/^tradevault_exchange_weight_spent_total (\S+)$/m.exec(text)?.[1] ?? NaN);
        };
        const before = await spent();
        const startedAt = Date.now();
        await new Promise((r) => setTimeout(r, opts.minutes * 60_000));
        const minutes = (Date.now() - startedAt) / 60_000;
        const after = await spent();
        const health = await (await fetch(`${wd.url}/healthz`)).json();
        return { perVaultPerMinute: (after - before) / minutes / opts.vaults, earlyWrites: health.data.priceStream.earlyWrites };
      } finally {
        await weighed.close();
      }
    },

    close: () => hosted?.close(),
  };
}
