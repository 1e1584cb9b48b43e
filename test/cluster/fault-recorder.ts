// Records what a cluster under faults did, from outside the daemons: the lease table sampled every
// 100 ms, every balance reading as it is stored (with when it was first seen), and at the end the
// journal, the chain's operator transactions, the events and the records the traffic was promised.
// The database goes away during an outage: a failed poll is tried again at the next one.
import { createHash } from "node:crypto";
import { JsonRpcProvider } from "ethers";
import pg from "pg";
import { unpackEventData } from "../../daemon/db/event-data.js";
import type { BalanceWrite, History, JournalEntry, LeaseSample, MinedTx, StoredEvent } from "./history-checker.js";

export const tokenHash = (token: string) => createHash("sha256").update(token).digest("hex");

export interface Recorder {
  leases: LeaseSample[];
  writes: BalanceWrite[];
  /** Polls that failed (the database down), for the report. */
  failedPolls(): number;
  stop(): Promise<void>;
  /** The end state: journal, chain, events, records. */
  final(rpcUrl: string, operator: string): Promise<Pick<History, "journal" | "journalHasSender" | "mined" | "events" | "records">>;
}

function loop(everyMs: number, step: () => Promise<void>, failed: () => void) {
  let stopped = false;
  const done = (async () => {
    while (!stopped) {
      await step().catch(failed);
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  return async () => {
    stopped = true;
    await done;
  };
}

export function startRecorder(databaseUrl: string): Recorder {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 3 });
  pool.on("error", () => undefined); // an idle connection dropped by an outage: the next query makes a new one
  const leases: LeaseSample[] = [];
  const writes: BalanceWrite[] = [];
  let failures = 0;
  const failed = () => void failures++;
  const lastLease = new Map<string, string>();
  const stopLeases = loop(100, async () => {
    const r = await pool.query<{ key: string; holder: string; epoch: string; expires_at: string }>("select key, holder, epoch, expires_at from leases");
    const atMs = Date.now();
    for (const row of r.rows) {
      const sig = `${row.holder}/${row.epoch}/${row.expires_at}`;
      if (lastLease.get(row.key) === sig) continue;
      lastLease.set(row.key, sig);
      leases.push({ atMs, key: row.key, holder: row.holder, epoch: Number(row.epoch), expiresAt: Number(row.expires_at) });
    }
  }, failed);
  // Ids are read from a little below the last seen: a row that commits late under a lower id is still seen.
  const seen = new Set<number>();
  let high = 0;
  const stopWrites = loop(100, async () => {
    const r = await pool.query<{ id: string; vault: string; data: string }>(
      `select e.id, v.address as vault, e.data from vault_events e join vaults v on v.num = e.vault_num
       where e.type = 'BalanceUpdated' and e.id > $1 order by e.id`, [Math.max(0, high - 1000)]);
    const seenMs = Date.now();
    for (const row of r.rows) {
      const id = Number(row.id);
      if (seen.has(id)) continue;
      seen.add(id);
      high = Math.max(high, id);
      writes.push({ vault: row.vault, seenMs, observedAt: Number((unpackEventData("BalanceUpdated", row.data) as { observedAt: number | string }).observedAt) });
    }
  }, failed);
  return {
    leases, writes,
    failedPolls: () => failures,
    async stop() {
      await Promise.all([stopLeases(), stopWrites()]);
    },
    async final(rpcUrl, operator) {
      try {
        const [journal, events, records] = await Promise.all([readJournal(pool), readEvents(pool), readRecords(pool)]);
        return { ...journal, events, records, mined: await minedBy(rpcUrl, operator) };
      } finally {
        await pool.end();
      }
    },
  };
}

async function readJournal(pool: pg.Pool): Promise<{ journal: JournalEntry[]; journalHasSender: boolean }> {
  const cols = await pool.query<{ column_name: string }>("select column_name from information_schema.columns where table_name = 'tx_journal'");
  const has = new Set(cols.rows.map((c) => c.column_name));
  const journalHasSender = has.has("sender") && has.has("sender_epoch");
  const r = await pool.query(`select j.id, j.nonce, j.hash, j.status, j.request_id, q.requester, j.replaces, j.purpose, j.created_at${journalHasSender ? ", j.sender, j.sender_epoch" : ""}
    from tx_journal j left join tx_requests q on q.id = j.request_id where j.chain = 'external-31337' order by j.id`);
  const journal = r.rows.map((row): JournalEntry => ({
    id: Number(row.id), nonce: Number(row.nonce), hash: row.hash, status: row.status, requestId: row.request_id, requester: row.requester,
    replaces: row.replaces === null ? null : Number(row.replaces), purpose: row.purpose, createdAt: Number(row.created_at),
    ...(journalHasSender ? { sender: row.sender, senderEpoch: row.sender_epoch === null ? null : Number(row.sender_epoch) } : {}),
  }));
  return { journal, journalHasSender };
}

async function readEvents(pool: pg.Pool): Promise<StoredEvent[]> {
  const r = await pool.query<{ id: string; vault: string; seq: string }>("select e.id, v.address as vault, e.seq from vault_events e join vaults v on v.num = e.vault_num order by e.id");
  return r.rows.map((row) => ({ id: Number(row.id), vault: row.vault, seq: Number(row.seq) }));
}

async function readRecords(pool: pg.Pool): Promise<History["records"]> {
  const orders = await pool.query<{ k: string; n: string }>("select idempotency_key as k, count(*) as n from orders where idempotency_key is not null group by idempotency_key");
  const vaults = await pool.query<{ address: string }>("select address from vaults");
  const proposals = await pool.query<{ id: string }>("select id from proposals");
  const sessions = await pool.query<{ token_hash: string }>("select token_hash from sessions");
  return {
    order: new Map(orders.rows.map((r) => [r.k, Number(r.n)])),
    vault: new Set(vaults.rows.map((r) => r.address.toLowerCase())),
    proposal: new Set(proposals.rows.map((r) => String(r.id))),
    session: new Set(sessions.rows.map((r) => r.token_hash)),
  };
}

/** Every transaction from `operator` on the chain, block by block. */
async function minedBy(rpcUrl: string, operator: string): Promise<MinedTx[]> {
  const provider = new JsonRpcProvider(rpcUrl, undefined, { staticNetwork: true });
  try {
    const latest = await provider.getBlockNumber();
    const out: MinedTx[] = [];
    const who = operator.toLowerCase();
    for (let b = 0; b <= latest; b += 20) {
      const blocks = await Promise.all(Array.from({ length: Math.min(20, latest - b + 1) }, (_, i) =>
        provider.send("eth_getBlockByNumber", [`0x${(b + i).toString(16)}`, true]) as Promise<{ number: string; transactions: Array<{ hash: string; from: string; to: string | null; nonce: string; input: string }> }>));
      for (const block of blocks) {
        for (const t of block.transactions) {
          if (t.from.toLowerCase() === who) out.push({ hash: t.hash, nonce: Number(t.nonce), to: t.to?.toLowerCase() ?? null, input: t.input, block: Number(block.number) });
        }
      }
    }
    return out;
  } finally {
    provider.destroy();
  }
}
