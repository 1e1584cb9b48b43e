// Daemon side of the alerts benchmark: a daemon on the embedded defaults (oracle loop off: the
// benchmark runs the cycles; webhooks may reach loopback) with `vaults` vaults, each holding a 3x BTC
// long under a 5% daily limit, and two json webhooks per investor (every event, BalanceUpdated
// included, so each cycle sends a delivery per vault and webhook). The BTC price then falls 10% and
// one cycle pauses every vault: when each Paused event was stored is noted by a 10-ms poll here.
import { Wallet } from "ethers";
import { sql } from "kysely";
import { VAULT_EVENT_TYPES } from "../../daemon/events/event-types.js";
import { approveAgent, createVaults, hostDaemon, signIn, type HostedDaemon } from "../lib/daemon-host.js";

async function call(url: string, method: string, path: string, token: string, body?: unknown): Promise<any> {
  const res = await fetch(`${url}${path}`, {
    method, headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` }, body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as { ok: boolean; data?: any };
  if (!res.ok || !json.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json.data;
}

export function serve() {
  let hosted: HostedDaemon | undefined;
  const d = () => hosted!.daemon;

  return {
    async start(): Promise<void> {
      hosted = await hostDaemon({ startOracle: false, config: { webhooksAllowPrivate: true, priceStream: false, oracleInterval: 60, staleAfter: 600 } });
    },

    /** The vaults, their positions and `hooksPerVault` webhooks each (receiver URLs taken in order). */
    async setUp(count: number, receivers: string[], hooksPerVault: number): Promise<void> {
      const { url } = d();
      d().sim!.setPrice("BTC", "60000");
      const trader = Wallet.createRandom();
      const traderToken = await signIn(url, trader);
      const made = await createVaults(d(), trader, count, { usdc: 10_000, maxDrawdownBps: 1_000, dailyDrawdownBps: 500 });
      for (let i = 0; i < count; i++) {
        const investor = made.investors[i]!;
        const token = await signIn(url, investor);
        await approveAgent(url, token, investor);
        for (let h = 0; h < hooksPerVault; h++) {
          await call(url, "POST", "/api/webhooks", token, { url: receivers[i * hooksPerVault + h], format: "json", events: [...VAULT_EVENT_TYPES] });
        }
      }
      await d().oracle.cycle(); // first readings: the vaults may trade
      for (const vault of made.addresses) {
        await call(url, "POST", "/api/trade", traderToken, { symbol: "BTC", side: "buy", size: "0.5", vaultAddress: vault });
      }
      await d().oracle.cycle();
    },

    /** One oracle cycle of every vault, ms. */
    async cycle(): Promise<number> {
      const t = performance.now();
      await d().oracle.cycle();
      return performance.now() - t;
    },

    /** BTC down 10%, one cycle: Unix ms each vault's Paused event was first seen stored, by vault. */
    async breach(): Promise<Record<string, number>> {
      const seen: Record<string, number> = {};
      const db = d().store.db;
      const look = async () => {
        const rows = await sql<{ address: string }>`select v.address from vault_events e join vaults v on v.num = e.vault_num where e.type = 'Paused'`.execute(db);
        const now = Date.now();
        for (const r of rows.rows) seen[r.address.toLowerCase()] ??= now;
      };
      let polling = true;
      const poll = (async () => {
        while (polling) {
          await look();
          await new Promise((r) => setTimeout(r, 10));
        }
        await look(); // the cycle has returned: every event it caused is stored
      })();
      d().sim!.setPrice("BTC", "54000");
      await d().oracle.cycle();
      polling = false;
      await poll;
      return seen;
    },

    close: () => hosted?.close(),
  };
}
