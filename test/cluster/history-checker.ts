// The rules a cluster of daemons must keep whatever fails, checked over the whole recorded history of
// a run (test/cluster/faults.test.ts records it; this module only judges). Each rule returns the
// violations it found, in words; an empty list is a pass. Times are Unix ms unless named seconds.

export interface LeaseSample {
  atMs: number;
  key: string;
  holder: string;
  epoch: number;
  expiresAt: number;
}

export interface JournalEntry {
  id: number;
  nonce: number;
  hash: string;
  status: string;
  requestId: string | null;
  /** The daemon that handed the transaction to the sender (tx_requests.requester), when it was relayed. */
  requester?: string | null;
  replaces: number | null;
  purpose: string;
  /** Unix seconds. */
  createdAt: number;
  /** The daemon that signed it and the sender lease's epoch it signed under, where the journal says so. */
  sender?: string | null;
  senderEpoch?: number | null;
}

export interface MinedTx {
  hash: string;
  nonce: number;
  to: string | null;
  input: string;
  block: number;
}

export type AckKind = "order" | "vault" | "proposal" | "session";

/** A 2xx answer to a POST: `key` names the record it promised (an Idempotency-Key, an address, a token's hash, an id). */
export interface Ack {
  kind: AckKind;
  key: string;
  daemon: number;
  atMs: number;
  /** For an order, the orderId answered: every answer under one key must name the same order. */
  detail?: string;
}

export interface StoredEvent {
  id: number;
  vault: string;
  seq: number;
}

/** One SSE client's received ids across all its reconnections, each resumed from the last id it had. */
export interface StreamLog {
  name: string;
  /** The Last-Event-ID it first asked from: it must receive every id above it. */
  from: number;
  ids: number[];
}

export interface BalanceWrite {
  vault: string;
  /** When the recorder first saw the stored event. */
  seenMs: number;
  /** The reading's own time, Unix seconds. */
  observedAt: number;
}

export interface SignIn {
  daemon: number;
  startMs: number;
  ms: number;
  ok: boolean;
}

export interface Fault {
  kind: "stall" | "kill" | "db";
  daemon?: number;
  daemonId?: string;
  fromMs: number;
  /** SIGCONT, the restart, PostgreSQL back. */
  toMs: number;
  /** A stall made while the daemon had a transaction open. */
  caught?: boolean;
}

export interface History {
  intervalS: number;
  leases: LeaseSample[];
  journal: JournalEntry[];
  /** Whether the journal records who signed each row (sender, sender_epoch). */
  journalHasSender: boolean;
  mined: MinedTx[];
  acks: Ack[];
  /** What the database holds at the end, by kind: order keys map to their rows' count. */
  records: { order: Map<string, number>; vault: Set<string>; proposal: Set<string>; session: Set<string> };
  events: StoredEvent[];
  streams: StreamLog[];
  writes: BalanceWrite[];
  signIns: SignIn[];
  faults: Fault[];
}

/** (1) One holder per lease key and epoch; a key's epoch never goes back. */
export function checkLeases(leases: LeaseSample[]): string[] {
  const out: string[] = [];
  const holders = new Map<string, string>();
  const lastEpoch = new Map<string, LeaseSample>();
  for (const s of [...leases].sort((a, b) => a.atMs - b.atMs)) {
    const k = `${s.key}@${s.epoch}`;
    const h = holders.get(k);
    if (h === undefined) holders.set(k, s.holder);
    else if (h !== s.holder) out.push(`lease ${s.key} epoch ${s.epoch} held by ${h} and by ${s.holder}`);
    const prev = lastEpoch.get(s.key);
    if (prev && s.epoch < prev.epoch) out.push(`lease ${s.key} went back from epoch ${prev.epoch} to ${s.epoch} at ${s.atMs}`);
    if (!prev || s.epoch >= prev.epoch) lastEpoch.set(s.key, s);
  }
  return out;
}

const original = (j: JournalEntry) => j.replaces === null && j.status !== "failed";

/**
 * (2) One sender per epoch. With the journal's sender columns: one signer per sender epoch, the
 * signer the lease table showed holding it, and nothing signed under an epoch after a newer one was
 * seen. Always: the operator's nonces handed out in journal order, each above the last (two senders
 * signing from their own memory interleave them).
 */
export function checkSender(h: Pick<History, "journal" | "journalHasSender" | "leases">): string[] {
  const out: string[] = [];
  let last: JournalEntry | undefined;
  for (const j of [...h.journal].sort((a, b) => a.id - b.id).filter(original)) {
    if (last && j.nonce <= last.nonce) out.push(`journal row ${j.id} signed nonce ${j.nonce} after row ${last.id} had ${last.nonce}: two senders interleaved`);
    last = j;
  }
  if (!h.journalHasSender) return out;
  const senderLeases = h.leases.filter((l) => l.key.startsWith("sender:"));
  const holderOf = new Map(senderLeases.map((l) => [l.epoch, l.holder]));
  const firstSeen = new Map<number, number>();
  for (const l of senderLeases) firstSeen.set(l.epoch, Math.min(firstSeen.get(l.epoch) ?? Infinity, l.atMs));
  const signers = new Map<number, string>();
  for (const j of h.journal) {
    if (j.sender == null || j.senderEpoch == null) continue;
    const s = signers.get(j.senderEpoch);
    if (s === undefined) signers.set(j.senderEpoch, j.sender);
    else if (s !== j.sender) out.push(`sender epoch ${j.senderEpoch} signed by ${s} and by ${j.sender} (row ${j.id})`);
    const leased = holderOf.get(j.senderEpoch);
    if (leased !== undefined && leased !== j.sender) out.push(`row ${j.id} signed by ${j.sender} under sender epoch ${j.senderEpoch}, which ${leased} held`);
    // A newer epoch seen a whole second before the row was made: the signer had lost the role.
    const newer = [...firstSeen].filter(([e, at]) => e > j.senderEpoch! && at + 1000 < j.createdAt * 1000);
    if (newer.length > 0) out.push(`row ${j.id} signed at ${j.createdAt} under sender epoch ${j.senderEpoch}, after epoch ${newer[0]![0]} began`);
  }
  return out;
}

/** (3) Each operator nonce mined once, each relayed request mined once, the chain and the journal agreeing. */
export function checkMined(h: Pick<History, "journal" | "mined">): string[] {
  const out: string[] = [];
  const byNonce = new Map<number, MinedTx>();
  for (const m of h.mined) {
    const other = byNonce.get(m.nonce);
    if (other) out.push(`nonce ${m.nonce} mined twice: ${other.hash} and ${m.hash}`);
    byNonce.set(m.nonce, m);
  }
  const byHash = new Map(h.journal.map((j) => [j.hash.toLowerCase(), j]));
  const mined = new Set(h.mined.map((m) => m.hash.toLowerCase()));
  for (const m of h.mined) if (!byHash.has(m.hash.toLowerCase())) out.push(`operator transaction ${m.hash} (nonce ${m.nonce}) mined with no journal row`);
  const minedRows = new Map<number, JournalEntry[]>();
  for (const j of h.journal) {
    const onChain = mined.has(j.hash.toLowerCase());
    if ((j.status === "confirmed" || j.status === "reverted") && !onChain) out.push(`journal row ${j.id} says ${j.status}, but ${j.hash} is not on the chain`);
    if (onChain) minedRows.set(j.nonce, [...(minedRows.get(j.nonce) ?? []), j]);
  }
  for (const [nonce, rows] of minedRows) if (rows.length > 1) out.push(`nonce ${nonce}: journal rows ${rows.map((r) => r.id).join(", ")} all mined`);
  const perRequest = new Map<string, JournalEntry[]>();
  for (const j of h.journal) if (j.requestId !== null && mined.has(j.hash.toLowerCase())) perRequest.set(j.requestId, [...(perRequest.get(j.requestId) ?? []), j]);
  for (const [id, rows] of perRequest) if (rows.length > 1) out.push(`request ${id} mined ${rows.length} times (nonces ${rows.map((r) => r.nonce).join(", ")})`);
  return out;
}

/**
 * (3b) Each call submitted once: two mined operator transactions with the same target and data are
 * one balance reading (or one deployment) sent twice; the contract ignores the second reading, so it
 * costs gas and says two writers, or one twice, took the same reading.
 */
export function checkCalls(h: Pick<History, "journal" | "mined">): string[] {
  const out: string[] = [];
  const byHash = new Map(h.journal.map((j) => [j.hash.toLowerCase(), j]));
  const calls = new Map<string, MinedTx>();
  const said = (m: MinedTx) => {
    const j = byHash.get(m.hash.toLowerCase());
    return j ? `row ${j.id} ${j.purpose} ${j.status}, ${j.requestId ? `request ${j.requestId} from ${j.requester ?? "?"}` : "the sender's own"}, made at ${j.createdAt}` : "no row";
  };
  for (const m of h.mined) {
    const k = `${m.to}:${m.input}`;
    const other = calls.get(k);
    if (other) out.push(`the same call mined twice: nonces ${other.nonce} (${said(other)}) and ${m.nonce} (${said(m)}), ${m.input.slice(0, 10)} to ${m.to}`);
    calls.set(k, m);
  }
  return out;
}

/** (4) Every 2xx answer's record is there afterwards; one order per Idempotency-Key, every answer naming it. */
export function checkAcknowledged(h: Pick<History, "acks" | "records">): string[] {
  const out: string[] = [];
  const answered = new Map<string, Ack>();
  for (const a of h.acks) {
    if (a.kind === "order") {
      const n = h.records.order.get(a.key) ?? 0;
      if (n !== 1) out.push(`order ${a.key} answered ${a.detail ?? "2xx"} by daemon ${a.daemon}: ${n} rows`);
      const first = answered.get(a.key);
      if (first && first.detail !== a.detail) out.push(`order ${a.key}: daemon ${first.daemon} answered ${first.detail}, daemon ${a.daemon} ${a.detail}`);
      if (!first) answered.set(a.key, a);
    } else if (!h.records[a.kind].has(a.key)) {
      out.push(`${a.kind} ${a.key} answered 2xx by daemon ${a.daemon} at ${a.atMs}, not in the database`);
    }
  }
  return out;
}

/**
 * (5) Events numbered in commit order, each vault's seq dense in id order, and every SSE client's ids
 * exactly the stored ones above where it began, up to the last it received: no repeat, and no id below
 * its highest that it never got (a row that committed late under a lower id is exactly that).
 */
export function checkEvents(h: Pick<History, "events" | "streams">): string[] {
  const out: string[] = [];
  const events = [...h.events].sort((a, b) => a.id - b.id);
  const seqs = new Map<string, number>();
  for (const e of events) {
    const want = (seqs.get(e.vault) ?? 0) + 1;
    if (e.seq !== want) out.push(`vault ${e.vault}: event ${e.id} has seq ${e.seq}, expected ${want}`);
    seqs.set(e.vault, e.seq);
  }
  const stored = new Map(events.map((e) => [e.id, e]));
  for (const s of h.streams) {
    const got = new Set<number>();
    let high = s.from;
    for (const id of s.ids) {
      if (id <= high) out.push(`${s.name}: received ${id} after ${high} (repeated or out of order)`);
      if (!stored.has(id)) out.push(`${s.name}: received ${id}, which is not stored`);
      got.add(id);
      high = Math.max(high, id);
    }
    const skipped = events.filter((e) => e.id > s.from && e.id < high && !got.has(e.id)).map((e) => e.id);
    if (skipped.length > 0) out.push(`${s.name}: skipped ${skipped.length} event(s) below the highest it received (${high}): ${skipped.slice(0, 10).join(", ")}`);
  }
  return out;
}

export function checkHistory(h: History): Array<{ rule: string; violations: string[] }> {
  return [
    { rule: "one lease holder per vault and epoch", violations: checkLeases(h.leases) },
    { rule: "one sender per epoch", violations: checkSender(h) },
    { rule: "no nonce or relayed request mined twice", violations: checkMined(h) },
    { rule: "each reading and deployment submitted once", violations: checkCalls(h) },
    { rule: "every acknowledged write present", violations: checkAcknowledged(h) },
    { rule: "event ids in commit order, SSE never skipping or repeating", violations: checkEvents(h) },
  ];
}
