// What a contract event does to the vault's row (the projection of the chain into the database), and
// the daemon's own events. Applied inside the caller's unit of work; each event stored once, keyed by
// (tx hash, log index), so applying a block twice changes nothing and reports nothing. A call's chain
// events are applied together (a receipt of the oracle's batched update holds one per vault).
// The caller's clock comes in ms: vault rows keep Unix seconds (schema-chain.ts), the webhook outbox
// Unix ms (schema-webhooks.ts), and each gets its own unit from it here.
import type { Executor } from "../db/store.js";
import * as repo from "../db/vaults-repo.js";
import { insertChainEvents, insertNumberedEvents, lockVaults, updateVaults, type NumberedEvent } from "../db/vault-events-repo.js";
import { enqueueDeliveries, enqueueDeliveriesOf } from "../db/webhooks-repo.js";
import type { VaultEventRow, VaultRow } from "../db/schema-chain.js";
import type { ChainEventInput } from "../chain/event-rows.js";
import { warningData, warningsAt } from "./limit-warnings.js";

/** A daemon-side event (no transaction), e.g. a balance mismatch the oracle noticed. */
export interface DaemonEventInput {
  vault: string;
  type: string;
  /** Unix seconds, as chain events' block times. */
  time: number;
  data: Record<string, unknown>;
}

const str = (v: unknown) => String(v);
const num = (v: unknown) => Number(v);
const add = (a: string, b: unknown) => (BigInt(a) + BigInt(str(b))).toString();
const toUnixSeconds = (ms: number) => Math.floor(ms / 1000);

/** Orders events across blocks; fits far beyond any block number a chain reaches this century. */
export const chainPosition = (blockNumber: number, logIndex: number) => blockNumber * 1_000_000 + logIndex;

function vaultFromCreated(e: ChainEventInput, nowS: number) {
  const d = e.data;
  const initial = str(d.initialBalance);
  return {
    address: e.vault, factory: str(d.factory), investor: str(d.investor), trader: str(d.trader),
    exchange_account: str(d.exchangeAccount), initial_balance: initial,
    max_drawdown_bps: num(d.maxDrawdownBps), daily_drawdown_bps: num(d.dailyDrawdownBps),
    deal_deadline: num(d.dealDeadline), trader_share_bps: num(d.traderShareBps),
    // Journal rows written before the term existed carry no breachPolicy: those vaults pause.
    breach_policy: d.breachPolicy === undefined ? 0 : num(d.breachPolicy),
    terms_hash: str(d.termsHash), salt: str(d.salt),
    created_block: e.blockNumber, created_tx: e.txHash, created_at: e.time,
    current_balance: initial, peak_balance: initial, day_start_balance: initial, updated_at: nowS,
  };
}

/** The vault-row change an event makes. Additive fields add; ordered fields only move forward. */
export function effect(v: VaultRow, e: ChainEventInput): repo.VaultChange | undefined {
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

/**
 * Applies contract events in the given order (chain order within one call), in a few statements for
 * the whole call, not several per event: the involved vault rows locked and read first, then the new
 * events inserted with their seqs, each vault's new state written, the webhook deliveries queued.
 * Events of vaults the database does not know (and that no VaultCreated before them in this call
 * introduces) are skipped: the indexer meets the VaultCreated first. Returns the event rows actually
 * inserted, in the given order.
 */
export async function applyChainEvents(trx: Executor, events: ChainEventInput[], nowMs: number): Promise<VaultEventRow[]> {
  if (events.length === 0) return [];
  const nowS = toUnixSeconds(nowMs);
  // Locked until commit, and read under the lock: what another writer committed before is in these
  // rows (PostgreSQL), so the state written below, computed from them, undoes none of it.
  const vaults = await lockVaults(trx, events.map((e) => e.vault));
  const known = await withCreatedVaults(trx, events, vaults, nowS);
  const rows = await insertChainEvents(trx, known.map((e) => ({ vault: vaults.get(e.vault)!, event: e })));
  const fresh = known.flatMap((e, i) => (rows[i] ? [{ e, row: rows[i]! }] : []));
  if (fresh.length === 0) return [];
  const { changes, warnings } = projection(vaults, fresh, nowS);
  await updateVaults(trx, changes);
  // After the call's chain events, numbered on from them: stored only with the reading that crossed.
  const warned = await insertNumberedEvents(trx, warnings.map((w) => ({ ...w, vault: vaults.get(w.vault)! })));
  const all = [...fresh.map((f) => f.row), ...warned];
  // In the events' own transaction, and only for new rows: a crash loses no delivery, and the
  // receipt and the indexer recording the same event enqueue it once.
  await enqueueDeliveriesOf(trx, all.map((row) => ({ vault: vaults.get(row.vault)!, event: row })), nowMs);
  return all;
}

/**
 * Stores the vaults the call's VaultCreated events introduce (rare: one at a time) and adds their rows
 * to `vaults`; answers the events whose vault is known where they stand in the call.
 */
async function withCreatedVaults(trx: Executor, events: ChainEventInput[], vaults: Map<string, VaultRow>, nowS: number): Promise<ChainEventInput[]> {
  const known = new Set(vaults.keys());
  const created: string[] = [];
  const out: ChainEventInput[] = [];
  for (const e of events) {
    if (e.type === "VaultCreated" && !known.has(e.vault)) {
      await repo.insertVault(trx, vaultFromCreated(e, nowS));
      created.push(e.vault);
      known.add(e.vault);
    }
    if (known.has(e.vault)) out.push(e);
  }
  if (created.length === 0) return out;
  for (const [address, row] of await lockVaults(trx, created)) vaults.set(address, row);
  // A VaultCreated that stored nothing (its terms already another vault's) leaves its vault unknown.
  return out.filter((e) => vaults.has(e.vault));
}

/**
 * Each vault's change: its new events' effects applied in order, each to the result of the one before,
 * and the limit warnings its applied readings record, numbered after its last chain event.
 */
function projection(vaults: Map<string, VaultRow>, fresh: Array<{ e: ChainEventInput; row: VaultEventRow }>, nowS: number) {
  const states = new Map<string, VaultRow>();
  const changes = new Map<string, repo.VaultChange & { address: string }>();
  const warnings: Array<Omit<NumberedEvent, "vault" | "seq"> & { vault: string }> = [];
  for (const { e, row } of fresh) {
    const v = states.get(e.vault) ?? vaults.get(e.vault)!;
    const applied = effect(v, e);
    let change: repo.VaultChange = { ...applied, event_count: row.seq, updated_at: nowS };
    if (e.type === "BalanceUpdated" && applied) {
      const w = warningsAt({ ...v, ...change });
      change = { ...change, ...w.change };
      for (const one of w.warnings) warnings.push({ vault: e.vault, type: "LimitNear", time: e.time, data: warningData(one) });
    }
    states.set(e.vault, { ...v, ...change });
    changes.set(e.vault, { ...changes.get(e.vault), ...change, address: e.vault });
  }
  const numbered = warnings.map((w) => {
    const c = changes.get(w.vault)!;
    c.event_count = c.event_count! + 1;
    return { ...w, seq: c.event_count };
  });
  return { changes: [...changes.values()], warnings: numbered };
}

/** Records a daemon-side event at the daemon's clock (ms); undefined when the vault is unknown. */
export async function appendDaemonEvent(trx: Executor, e: DaemonEventInput, nowMs: number): Promise<VaultEventRow | undefined> {
  const v = await repo.findVault(trx, e.vault);
  if (!v) return undefined;
  const row = await repo.insertEvent(trx, v, { ...e, txHash: null, logIndex: null, blockNumber: null });
  if (row) {
    await repo.updateVault(trx, v.address, { updated_at: toUnixSeconds(nowMs) });
    await enqueueDeliveries(trx, v, row, nowMs);
  }
  return row;
}
