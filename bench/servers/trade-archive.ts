// Daemon side of trade-history: one vault (created through the real path) whose vault_trades grow by
// bulk insert, keeping the repository's invariants: one row per (account, tid), a dense per-vault
// seq (1, 2, 3...) in time order. One trade a second, so dates map to seqs.
import { Wallet } from "ethers";
import { createVaults, hostDaemon, signIn, type HostedDaemon } from "../lib/daemon-host.js";
import { sqliteHandle } from "../../daemon/db/sqlite-store.js";

export interface Archive {
  url: string;
  token: string;
  vault: string;
}

/** Time of the first trade (ms); trade `seq` happened at T0 + (seq - 1) seconds. */
export const T0 = Date.UTC(2026, 0, 1);

export function serve() {
  let hosted: HostedDaemon | undefined;
  let vault = "";
  let account = "";
  return {
    async start(): Promise<Archive> {
      hosted = await hostDaemon();
      const trader = Wallet.createRandom();
      const token = await signIn(hosted.daemon.url, trader);
      const { addresses, investors } = await createVaults(hosted.daemon, trader, 1);
      vault = addresses[0]!;
      account = investors[0]!.address;
      return { url: hosted.daemon.url, token, vault };
    },
    /** Appends trades until the vault has `total`, `batch` rows per transaction; seconds taken. */
    fill(total: number, batch = 50_000): number {
      const sqlite = sqliteHandle(hosted!.daemon.store);
      const insert = sqlite.prepare(
        `insert into vault_trades (vault, seq, account, tid, oid, symbol, side, size, price, pnl, fee, time_ms)
         values (?, ?, ?, ?, ?, 'BTC', ?, '0.01', '60000.5', '-1.25', '0.12', ?)`,
      );
      const last = (sqlite.prepare("select coalesce(max(seq), 0) n from vault_trades where vault = ?").get(vault) as { n: number }).n;
      const t = process.hrtime.bigint();
      const chunk = sqlite.transaction((from: number, to: number) => {
        for (let seq = from; seq <= to; seq++) insert.run(vault, seq, account, seq, 1_000_000 + seq, seq % 2 ? "buy" : "sell", T0 + (seq - 1) * 1000);
      });
      for (let from = last + 1; from <= total; from += batch) chunk(from, Math.min(total, from + batch - 1));
      return Number(process.hrtime.bigint() - t) / 1e9;
    },
    close: () => hosted?.close(),
  };
}
