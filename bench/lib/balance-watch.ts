// Watches a shared database for balance readings as they are stored: every BalanceUpdated event
// with the moment this process first saw it (a poll every 50 ms, so to within about 50 ms) and the
// reading's own observedAt (Unix seconds, from the daemon that read it). The events are stored once
// the reading's transaction is mined: "a balance written".
import pg from "pg";
import { unpackEventData } from "../../daemon/db/event-data.js";

export interface Arrival {
  vault: string;
  /** Unix ms when the watcher first saw the stored event. */
  seenMs: number;
  /** The reading's own time, Unix seconds. */
  observedAt: number;
  /**
   * Who had the reading's transaction sent: the daemon id that handed it to the sender through the
   * database (tx_requests), or null when the sender sent its own (or it is not in the journal).
   */
  requester: string | null;
  /** The operator's nonce of the reading's transaction (its journal row), if known. */
  nonce: number | null;
}

export interface BalanceWatch {
  arrivals: Arrival[];
  /** Arrivals seen at or after `fromMs` (and before `toMs`). */
  since(fromMs: number, toMs?: number): Arrival[];
  /** The highest operator nonce in the journal now (-1 when none). */
  lastNonce(): Promise<number>;
  stop(): Promise<void>;
}

export async function watchBalances(databaseUrl: string, everyMs = 50): Promise<BalanceWatch> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const arrivals: Arrival[] = [];
  let lastId = 0;
  let stopped = false;
  let failure: unknown;
  const poll = async () => {
    const r = await client.query<{ id: number; vault: string; data: string; requester: string | null; nonce: string | null }>(
      `select e.id, v.address as vault, e.data, q.requester, j.nonce
       from vault_events e join vaults v on v.num = e.vault_num
       left join chain_txs t on t.id = e.tx
       left join tx_journal j on lower(j.hash) = lower(t.hash)
       left join tx_requests q on q.id = j.request_id
       where e.type = 'BalanceUpdated' and e.id > $1 order by e.id`, [lastId]);
    const seenMs = Date.now();
    for (const row of r.rows) {
      lastId = Math.max(lastId, Number(row.id));
      arrivals.push({
        vault: row.vault, seenMs, observedAt: Number(unpackEventData("BalanceUpdated", row.data).observedAt),
        requester: row.requester, nonce: row.nonce === null ? null : Number(row.nonce),
      });
    }
  };
  const loop = (async () => {
    while (!stopped) {
      await poll();
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })().catch((err) => void (failure = err));
  return {
    arrivals,
    since(fromMs, toMs = Infinity) {
      if (failure) throw new Error(`the balance watch stopped: ${(failure as Error).message}`);
      return arrivals.filter((a) => a.seenMs >= fromMs && a.seenMs < toMs);
    },
    lastNonce: async () => Number((await client.query<{ n: string | null }>("select max(nonce) as n from tx_journal")).rows[0]?.n ?? -1),
    async stop() {
      stopped = true;
      await loop;
      await client.end();
    },
  };
}
