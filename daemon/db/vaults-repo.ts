// Vaults and their events. The chain indexer (and services writing their own receipts through) apply
// decoded contract events here; each event is keyed by (tx hash, log index), so applying the same
// event twice changes nothing and reports nothing. Writes are synchronous (call them inside
// store.immediate); reads are plain kysely.
import type { Kysely } from "kysely";
import type { SyncExecutor } from "./database.js";
import type { Database } from "./schema.js";
import type { VaultEventRow, VaultRow } from "./schema-chain.js";

/** One decoded contract event, as the chain module hands it over. Amounts in `data` are decimal strings. */
export interface ChainEventInput {
  vault: string;
  type: string;
  txHash: string;
  logIndex: number;
  blockNumber: number;
  /** Block time, Unix seconds. */
  time: number;
  data: Record<string, unknown>;
}

/** A daemon-side event (no transaction), e.g. a balance mismatch the oracle noticed. */
export interface DaemonEventInput {
  vault: string;
  type: string;
  time: number;
  data: Record<string, unknown>;
}

const str = (v: unknown) => String(v);
const num = (v: unknown) => Number(v);
const add = (a: string, b: unknown) => (BigInt(a) + BigInt(str(b))).toString();

/** Orders events across blocks; fits far beyond any block number a chain reaches this century. */
export const chainPosition = (blockNumber: number, logIndex: number) => blockNumber * 1_000_000 + logIndex;

function insertVaultFromCreated(db: Kysely<Database>, x: SyncExecutor, e: ChainEventInput, now: number): void {
  const d = e.data;
  const initial = str(d.initialBalance);
  x.run(
    db.insertInto("vaults")
      .values({
        address: e.vault, factory: str(d.factory), investor: str(d.investor), trader: str(d.trader),
        exchange_account: str(d.exchangeAccount), initial_balance: initial,
        max_drawdown_bps: num(d.maxDrawdownBps), daily_drawdown_bps: num(d.dailyDrawdownBps),
        deal_deadline: num(d.dealDeadline), trader_share_bps: num(d.traderShareBps),
        terms_hash: str(d.termsHash), salt: str(d.salt),
        created_block: e.blockNumber, created_tx: e.txHash, created_at: e.time,
        current_balance: initial, peak_balance: initial, day_start_balance: initial, updated_at: now,
      })
      .onConflict((oc) => oc.column("address").doNothing())
      .compile(),
  );
}

function getVaultSync(db: Kysely<Database>, x: SyncExecutor, address: string): VaultRow | undefined {
  return x.get(db.selectFrom("vaults").selectAll().where("address", "=", address).compile());
}

/** The vault-row change an event makes. Additive fields add; ordered fields only move forward. */
function effect(v: VaultRow, e: ChainEventInput): Partial<VaultRow> | undefined {
  const d = e.data;
  const pos = chainPosition(e.blockNumber, e.logIndex);
  switch (e.type) {
    case "BalanceUpdated":
      // The contract applies readings in observedAt order, so the newest observedAt is the state.
      if (v.last_observed_at !== null && v.last_observed_at >= num(d.observedAt)) return undefined;
      return {
        current_balance: str(d.balance), peak_balance: str(d.peakBalance),
        day_start_balance: str(d.dayStartBalance), last_observed_at: num(d.observedAt),
      };
    case "Paused":
      return v.pause_pos >= pos ? undefined : { paused: 1, pause_reason: num(d.reason), pause_pos: pos };
    case "Unpaused":
      return v.pause_pos >= pos ? undefined : { paused: 0, pause_pos: pos };
    case "Closed":
      return {
        closed: 1, closed_at: e.time, final_balance: str(d.finalBalance), profit: str(d.profit),
        trader_share: str(d.traderShare), investor_share: str(d.investorShare),
      };
    case "Funded":
      return { funded_total: add(v.funded_total, d.amount) };
    case "Withdrawn":
      if (str(d.party) === v.trader) return { paid_trader: add(v.paid_trader, d.amount) };
      if (str(d.party) === v.investor) return { paid_investor: add(v.paid_investor, d.amount) };
      return undefined;
    default:
      return undefined;
  }
}

function insertEvent(
  db: Kysely<Database>, x: SyncExecutor, v: VaultRow,
  e: { type: string; txHash: string | null; logIndex: number | null; blockNumber: number | null; time: number; data: Record<string, unknown> },
): VaultEventRow | undefined {
  return x.get(
    db.insertInto("vault_events")
      .values({
        vault: v.address, seq: v.event_count + 1, type: e.type, tx_hash: e.txHash, log_index: e.logIndex,
        block_number: e.blockNumber, time: e.time, data: JSON.stringify(e.data),
      })
      .onConflict((oc) => oc.columns(["tx_hash", "log_index"]).doNothing())
      .returningAll()
      .compile(),
  );
}

/**
 * Applies contract events in the given order (chain order within one call). Events of vaults the
 * database does not know (and that no VaultCreated in this call introduces) are skipped: the indexer
 * meets the VaultCreated first. Returns the event rows actually inserted.
 */
export function applyChainEvents(db: Kysely<Database>, x: SyncExecutor, events: ChainEventInput[], now: number): VaultEventRow[] {
  const inserted: VaultEventRow[] = [];
  for (const e of events) {
    if (e.type === "VaultCreated") insertVaultFromCreated(db, x, e, now);
    const v = getVaultSync(db, x, e.vault);
    if (!v) continue;
    const row = insertEvent(db, x, v, e);
    if (!row) continue;
    const change = effect(v, e) ?? {};
    x.run(db.updateTable("vaults").set({ ...change, event_count: row.seq, updated_at: now }).where("address", "=", v.address).compile());
    inserted.push(row);
  }
  return inserted;
}

/** Records a daemon-side event (call inside store.immediate); undefined when the vault is unknown. */
export function appendDaemonEvent(db: Kysely<Database>, x: SyncExecutor, e: DaemonEventInput, now: number): VaultEventRow | undefined {
  const v = getVaultSync(db, x, e.vault);
  if (!v) return undefined;
  const row = insertEvent(db, x, v, { ...e, txHash: null, logIndex: null, blockNumber: null });
  if (row) x.run(db.updateTable("vaults").set({ event_count: row.seq, updated_at: now }).where("address", "=", v.address).compile());
  return row;
}

/** Which of `addresses` are vaults the database knows. */
export function knownVaults(db: Kysely<Database>, x: SyncExecutor, addresses: string[]): Set<string> {
  if (addresses.length === 0) return new Set();
  const rows = x.all(db.selectFrom("vaults").select("address").where("address", "in", addresses).compile());
  return new Set(rows.map((r) => r.address));
}

// ------------------------------------------------------------------ reads

export async function findVault(db: Kysely<Database>, address: string): Promise<VaultRow | undefined> {
  return db.selectFrom("vaults").selectAll().where("address", "=", address).executeTakeFirst();
}

/** Vaults where `party` is the investor or the trader, newest first. */
export async function vaultsOfParty(db: Kysely<Database>, party: string): Promise<VaultRow[]> {
  return db.selectFrom("vaults").selectAll()
    .where((eb) => eb.or([eb("investor", "=", party), eb("trader", "=", party)]))
    .orderBy("created_at", "desc").orderBy("address")
    .execute();
}

export const SUMMARY_COLUMNS = [
  "address", "investor", "trader", "initial_balance", "current_balance", "closed", "paused", "deal_deadline", "trader_share_bps",
] as const;
export type VaultSummaryRow = Pick<VaultRow, (typeof SUMMARY_COLUMNS)[number]>;

/** vaultsOfParty with only what a list shows, on the cached prepared statement (synchronous). */
export function vaultSummariesOfParty(db: Kysely<Database>, x: SyncExecutor, party: string): VaultSummaryRow[] {
  return x.all(
    db.selectFrom("vaults").select(SUMMARY_COLUMNS)
      .where((eb) => eb.or([eb("investor", "=", party), eb("trader", "=", party)]))
      .orderBy("created_at", "desc").orderBy("address")
      .compile(),
  );
}

/** Vaults not closed (paused ones included: the oracle keeps reading them). */
export async function activeVaults(db: Kysely<Database>): Promise<VaultRow[]> {
  return db.selectFrom("vaults").selectAll().where("closed", "=", 0).orderBy("address").execute();
}

export async function activeVaultFor(db: Kysely<Database>, exchangeAccount: string): Promise<VaultRow | undefined> {
  return db.selectFrom("vaults").selectAll()
    .where("closed", "=", 0).where("exchange_account", "=", exchangeAccount)
    .executeTakeFirst();
}

/** Events with id > afterId of the given vaults, oldest first: what an SSE stream resumes with. */
export async function eventsAfter(db: Kysely<Database>, vaults: string[], afterId: number, limit = 500): Promise<VaultEventRow[]> {
  if (vaults.length === 0) return [];
  return db.selectFrom("vault_events").selectAll()
    .where("vault", "in", vaults).where("id", ">", afterId)
    .orderBy("id").limit(limit)
    .execute();
}

/** One page of a vault's events, newest first, as a range of its dense sequence. */
export async function vaultEventsPage(
  db: Kysely<Database>, vault: string, limit: number, offset: number,
): Promise<{ rows: VaultEventRow[]; total: number }> {
  const v = await db.selectFrom("vaults").select("event_count").where("address", "=", vault).executeTakeFirst();
  const total = v?.event_count ?? 0;
  const hi = total - offset;
  if (hi <= 0) return { rows: [], total };
  const rows = await db.selectFrom("vault_events").selectAll()
    .where("vault", "=", vault).where("seq", "<=", hi).where("seq", ">", hi - limit)
    .orderBy("seq", "desc")
    .execute();
  return { rows, total };
}

export async function allVaultEvents(db: Kysely<Database>): Promise<VaultEventRow[]> {
  return db.selectFrom("vault_events").selectAll().orderBy("id").execute();
}
