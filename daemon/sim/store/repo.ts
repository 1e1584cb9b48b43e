// Prepared statements over the sim's tables and the one place rows become domain objects
// (TEXT decimals <-> bigints at the sim scale). Callers wrap writes in `tx` so one action or one
// price move commits as a whole.
import { F } from "../num.js";
import type { Account, Agent, FillRecord, LedgerRecord, Order, OrderStatus, Position, Tif, TriggerSpec } from "../types.js";
import type { Db } from "./db.js";

interface OrderRow {
  oid: number; user: string; coin: string; is_buy: number; limit_px: string; sz: string; orig_sz: string;
  tif: string; reduce_only: number; cloid: string | null; status: string; created_at: number; status_at: number;
  trigger_px: string | null; tpsl: string | null; trigger_market: number | null; trigger_state: string | null;
  position_tpsl: number; parent_oid: number | null;
}

const rowToTrigger = (r: OrderRow): TriggerSpec | undefined => r.trigger_px === null ? undefined : {
  px: F.parse(r.trigger_px),
  tpsl: r.tpsl as TriggerSpec["tpsl"],
  isMarket: r.trigger_market === 1,
  state: r.trigger_state as TriggerSpec["state"],
  positionTpsl: r.position_tpsl === 1,
  parentOid: r.parent_oid,
};

const rowToOrder = (r: OrderRow): Order => ({
  oid: r.oid,
  user: r.user,
  coin: r.coin,
  isBuy: r.is_buy === 1,
  limitPx: F.parse(r.limit_px),
  sz: F.parse(r.sz),
  origSz: F.parse(r.orig_sz),
  tif: r.tif as Tif,
  reduceOnly: r.reduce_only === 1,
  cloid: r.cloid,
  status: r.status as OrderStatus,
  createdAt: r.created_at,
  statusAt: r.status_at,
  ...(r.trigger_px === null ? {} : { trigger: rowToTrigger(r) }),
});

export class SimRepo {
  private readonly s;

  constructor(readonly db: Db) {
    const p = (sql: string) => db.prepare(sql);
    this.s = {
      getMeta: p("SELECT value FROM sim_meta WHERE key = ?"),
      metaKeys: p("SELECT key FROM sim_meta WHERE key >= ? AND key < ? ORDER BY key"),
      setMeta: p("INSERT INTO sim_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value"),
      getMark: p("SELECT px FROM marks WHERE coin = ?"),
      allMarks: p("SELECT coin, px FROM marks"),
      setMark: p("INSERT INTO marks (coin, px, time) VALUES (?, ?, ?) ON CONFLICT (coin) DO UPDATE SET px = excluded.px, time = excluded.time"),
      getAccount: p("SELECT user, usdc, created_at FROM accounts WHERE user = ?"),
      insertAccount: p("INSERT INTO accounts (user, usdc, created_at) VALUES (?, ?, ?)"),
      setUsdc: p("UPDATE accounts SET usdc = ? WHERE user = ?"),
      getLeverage: p("SELECT leverage FROM leverages WHERE user = ? AND coin = ?"),
      setLeverage: p("INSERT INTO leverages (user, coin, leverage) VALUES (?, ?, ?) ON CONFLICT (user, coin) DO UPDATE SET leverage = excluded.leverage"),
      getIsolated: p("SELECT margin FROM isolated_margins WHERE user = ? AND coin = ?"),
      setIsolated: p("INSERT INTO isolated_margins (user, coin, margin) VALUES (?, ?, ?) ON CONFLICT (user, coin) DO UPDATE SET margin = excluded.margin"),
      deleteIsolated: p("DELETE FROM isolated_margins WHERE user = ? AND coin = ?"),
      getPosition: p("SELECT szi, entry_ntl FROM positions WHERE user = ? AND coin = ?"),
      positionsOf: p("SELECT coin, szi, entry_ntl FROM positions WHERE user = ? ORDER BY coin"),
      positionUsers: p("SELECT DISTINCT user FROM positions ORDER BY user"),
      allPositions: p("SELECT user, coin, szi, entry_ntl FROM positions"),
      savePosition: p("INSERT INTO positions (user, coin, szi, entry_ntl) VALUES (?, ?, ?, ?) ON CONFLICT (user, coin) DO UPDATE SET szi = excluded.szi, entry_ntl = excluded.entry_ntl"),
      deletePosition: p("DELETE FROM positions WHERE user = ? AND coin = ?"),
      insertOrder: p(`INSERT INTO orders (oid, user, coin, is_buy, limit_px, sz, orig_sz, tif, reduce_only, cloid, status, created_at, status_at,
          trigger_px, tpsl, trigger_market, trigger_state, position_tpsl, parent_oid)
        VALUES (@oid, @user, @coin, @is_buy, @limit_px, @sz, @orig_sz, @tif, @reduce_only, @cloid, @status, @created_at, @status_at,
          @trigger_px, @tpsl, @trigger_market, @trigger_state, @position_tpsl, @parent_oid)`),
      setTriggerState: p("UPDATE orders SET trigger_state = ? WHERE oid = ?"),
      pendingTriggersOn: p("SELECT * FROM orders WHERE status = 'open' AND coin = ? AND trigger_state = 'untriggered' ORDER BY oid"),
      childrenOf: p("SELECT * FROM orders WHERE parent_oid = ? ORDER BY oid"),
      updateOrder: p("UPDATE orders SET sz = ?, status = ?, status_at = ? WHERE oid = ?"),
      getOrder: p("SELECT * FROM orders WHERE oid = ?"),
      orderByCloid: p("SELECT * FROM orders WHERE user = ? AND cloid = ?"),
      openOrdersOf: p("SELECT * FROM orders WHERE user = ? AND status = 'open' ORDER BY oid"),
      // On the book: plain orders and triggers that fired; untriggered ones only watch the mark.
      openOrdersOn: p("SELECT * FROM orders WHERE status = 'open' AND coin = ? AND (trigger_state IS NULL OR trigger_state = 'triggered') ORDER BY oid"),
      insertFill: p("INSERT INTO fills (tid, user, oid, time, body) VALUES (?, ?, ?, ?, ?)"),
      recentFills: p("SELECT body FROM fills WHERE user = ? ORDER BY time DESC, tid DESC LIMIT ?"),
      fillsFrom: p("SELECT body FROM fills WHERE user = ? AND time >= ? AND time <= ? ORDER BY time, tid LIMIT ?"),
      getAgent: p("SELECT * FROM agents WHERE address = ?"),
      agentsOf: p("SELECT * FROM agents WHERE user = ? ORDER BY approved_at, address"),
      upsertAgent: p(`INSERT INTO agents (address, user, name, valid_until, approved_at) VALUES (?, ?, ?, ?, ?)
        ON CONFLICT (address) DO UPDATE SET user = excluded.user, name = excluded.name, valid_until = excluded.valid_until, approved_at = excluded.approved_at`),
      deleteAgent: p("DELETE FROM agents WHERE address = ?"),
      noncesOf: p("SELECT nonce FROM nonces WHERE signer = ? ORDER BY nonce DESC"),
      insertNonce: p("INSERT INTO nonces (signer, nonce) VALUES (?, ?)"),
      pruneNonces: p(`DELETE FROM nonces WHERE signer = ? AND nonce NOT IN
        (SELECT nonce FROM nonces WHERE signer = ? ORDER BY nonce DESC LIMIT ?)`),
      insertLedger: p("INSERT INTO ledger (user, time, hash, delta) VALUES (?, ?, ?, ?)"),
      ledgerOf: p("SELECT time, hash, delta FROM ledger WHERE user = ? AND time >= ? AND time <= ? ORDER BY time, id"),
      recentOrdersOf: p("SELECT * FROM orders WHERE user = ? ORDER BY status_at DESC, oid DESC LIMIT ?"),
      clearCloid: p("UPDATE orders SET cloid = NULL WHERE oid = ?"),
      addMarkHistory: p("INSERT INTO mark_history (coin, time, px) VALUES (?, ?, ?)"),
      markHistory: p("SELECT time, px FROM mark_history WHERE coin = ? AND time >= ? AND time <= ? ORDER BY time, rowid"),
      markBefore: p("SELECT px FROM mark_history WHERE coin = ? AND time < ? ORDER BY time DESC, rowid DESC LIMIT 1"),
      fillTimes: p("SELECT body FROM fills WHERE time >= ? AND time <= ? ORDER BY time, tid"),
      addFundingRate: p("INSERT OR REPLACE INTO funding_rates (coin, time, rate) VALUES (?, ?, ?)"),
      fundingRates: p("SELECT time, rate FROM funding_rates WHERE coin = ? AND time >= ? AND time <= ? ORDER BY time LIMIT 500"),
      getFundingTotals: p("SELECT all_time, since_open, since_change FROM funding_totals WHERE user = ? AND coin = ?"),
      setFundingTotals: p(`INSERT INTO funding_totals (user, coin, all_time, since_open, since_change) VALUES (?, ?, ?, ?, ?)
        ON CONFLICT (user, coin) DO UPDATE SET all_time = excluded.all_time, since_open = excluded.since_open, since_change = excluded.since_change`),
      getSpot: p("SELECT usdc FROM spot_balances WHERE user = ?"),
      setSpot: p("INSERT INTO spot_balances (user, usdc) VALUES (?, ?) ON CONFLICT (user) DO UPDATE SET usdc = excluded.usdc"),
    };
  }

  /** Runs `fn` in one IMMEDIATE transaction (rolled back if it throws). `fn` must not await. */
  tx<T>(fn: () => T): T {
    return this.db.transaction(fn).immediate();
  }

  // ---- meta and counters -----------------------------------------------------------------------
  getMeta(key: string): string | undefined {
    return (this.s.getMeta.get(key) as { value: string } | undefined)?.value;
  }
  setMeta(key: string, value: string): void {
    this.s.setMeta.run(key, value);
  }
  metaKeysWithPrefix(prefix: string): string[] {
    // Keys are ASCII: every key with the prefix sorts between it and the prefix followed by U+FFFF.
    return (this.s.metaKeys.all(prefix, `${prefix}\uffff`) as { key: string }[]).map((r) => r.key);
  }
  /** A user's traded notional (USD), for userRateLimit, userFees and the scheduleCancel gate. */
  volume(user: string): bigint {
    return F.parse(this.getMeta(`volume:${user}`) ?? "0");
  }
  addVolume(user: string, ntl: bigint): void {
    this.setMeta(`volume:${user}`, F.format(this.volume(user) + ntl));
  }
  /** Next value of a persisted counter that starts at `start`. */
  nextId(key: string, start: number): number {
    const id = Number(this.getMeta(key) ?? start);
    this.setMeta(key, String(id + 1));
    return id;
  }

  // ---- marks -----------------------------------------------------------------------------------
  getMark(coin: string): bigint | undefined {
    const row = this.s.getMark.get(coin) as { px: string } | undefined;
    return row && F.parse(row.px);
  }
  allMarks(): Map<string, bigint> {
    const rows = this.s.allMarks.all() as { coin: string; px: string }[];
    return new Map(rows.map((r) => [r.coin, F.parse(r.px)]));
  }
  /** Sets the mark and keeps it in the price history the candles are built from. */
  setMark(coin: string, px: bigint, time: number): void {
    this.s.setMark.run(coin, F.format(px), time);
    this.addMarkHistory(coin, time, px);
  }

  // ---- accounts, leverage, positions -------------------------------------------------------------
  getAccount(user: string): Account | undefined {
    const r = this.s.getAccount.get(user) as { user: string; usdc: string; created_at: number } | undefined;
    return r && { user: r.user, usdc: F.parse(r.usdc), createdAt: r.created_at };
  }
  createAccount(user: string, time: number): Account {
    this.s.insertAccount.run(user, "0", time);
    return { user, usdc: 0n, createdAt: time };
  }
  setUsdc(user: string, usdc: bigint): void {
    this.s.setUsdc.run(F.format(usdc), user);
  }
  getLeverage(user: string, coin: string): number | undefined {
    return (this.s.getLeverage.get(user, coin) as { leverage: number } | undefined)?.leverage;
  }
  setLeverage(user: string, coin: string, leverage: number): void {
    this.s.setLeverage.run(user, coin, leverage);
  }
  /**
   * The margin an isolated position holds (USDC moved out of the cross balance, without unrealized
   * PnL); undefined when the user trades the coin on cross. A row with margin 0 means "isolated, flat".
   */
  isolatedMargin(user: string, coin: string): bigint | undefined {
    const r = this.s.getIsolated.get(user, coin) as { margin: string } | undefined;
    return r && F.parse(r.margin);
  }
  setIsolatedMargin(user: string, coin: string, margin: bigint): void {
    this.s.setIsolated.run(user, coin, F.format(margin));
  }
  /** Back to cross for this coin. */
  clearIsolated(user: string, coin: string): void {
    this.s.deleteIsolated.run(user, coin);
  }
  getPosition(user: string, coin: string): Position {
    const r = this.s.getPosition.get(user, coin) as { szi: string; entry_ntl: string } | undefined;
    return { user, coin, szi: r ? F.parse(r.szi) : 0n, entryNtl: r ? F.parse(r.entry_ntl) : 0n };
  }
  positionsOf(user: string): Position[] {
    const rows = this.s.positionsOf.all(user) as { coin: string; szi: string; entry_ntl: string }[];
    return rows.map((r) => ({ user, coin: r.coin, szi: F.parse(r.szi), entryNtl: F.parse(r.entry_ntl) }));
  }
  usersWithPositions(): string[] {
    return (this.s.positionUsers.all() as { user: string }[]).map((r) => r.user);
  }
  allPositions(): Position[] {
    const rows = this.s.allPositions.all() as { user: string; coin: string; szi: string; entry_ntl: string }[];
    return rows.map((r) => ({ user: r.user, coin: r.coin, szi: F.parse(r.szi), entryNtl: F.parse(r.entry_ntl) }));
  }
  savePosition(p: Position): void {
    if (p.szi === 0n) this.s.deletePosition.run(p.user, p.coin);
    else this.s.savePosition.run(p.user, p.coin, F.format(p.szi), F.format(p.entryNtl));
  }

  // ---- orders ----------------------------------------------------------------------------------
  insertOrder(o: Order): void {
    this.s.insertOrder.run({
      oid: o.oid, user: o.user, coin: o.coin, is_buy: o.isBuy ? 1 : 0, limit_px: F.format(o.limitPx),
      sz: F.format(o.sz), orig_sz: F.format(o.origSz), tif: o.tif, reduce_only: o.reduceOnly ? 1 : 0,
      cloid: o.cloid, status: o.status, created_at: o.createdAt, status_at: o.statusAt,
      trigger_px: o.trigger ? F.format(o.trigger.px) : null, tpsl: o.trigger?.tpsl ?? null,
      trigger_market: o.trigger ? (o.trigger.isMarket ? 1 : 0) : null, trigger_state: o.trigger?.state ?? null,
      position_tpsl: o.trigger?.positionTpsl ? 1 : 0, parent_oid: o.trigger?.parentOid ?? null,
    });
  }
  setTriggerState(oid: number, state: TriggerSpec["state"]): void {
    this.s.setTriggerState.run(state, oid);
  }
  /** Open trigger orders on a coin that have not fired yet (oldest first). */
  pendingTriggersOn(coin: string): Order[] {
    return (this.s.pendingTriggersOn.all(coin) as OrderRow[]).map(rowToOrder);
  }
  /** A normalTpsl entry's TP/SL children. */
  childrenOf(parentOid: number): Order[] {
    return (this.s.childrenOf.all(parentOid) as OrderRow[]).map(rowToOrder);
  }
  updateOrder(oid: number, sz: bigint, status: OrderStatus, time: number): void {
    this.s.updateOrder.run(F.format(sz), status, time, oid);
  }
  getOrder(oid: number): Order | undefined {
    const r = this.s.getOrder.get(oid) as OrderRow | undefined;
    return r && rowToOrder(r);
  }
  orderByCloid(user: string, cloid: string): Order | undefined {
    const r = this.s.orderByCloid.get(user, cloid) as OrderRow | undefined;
    return r && rowToOrder(r);
  }
  openOrdersOf(user: string): Order[] {
    return (this.s.openOrdersOf.all(user) as OrderRow[]).map(rowToOrder);
  }
  openOrdersOn(coin: string): Order[] {
    return (this.s.openOrdersOn.all(coin) as OrderRow[]).map(rowToOrder);
  }

  // ---- fills and ledger --------------------------------------------------------------------------
  insertFill(user: string, fill: FillRecord): void {
    this.s.insertFill.run(fill.tid, user, fill.oid, fill.time, JSON.stringify(fill));
  }
  /** The most recent fills, newest first (Hyperliquid's userFills). */
  recentFills(user: string, limit = 2000): FillRecord[] {
    return (this.s.recentFills.all(user, limit) as { body: string }[]).map((r) => JSON.parse(r.body) as FillRecord);
  }
  /** Fills from `startTime` on, oldest first, so the last one's time pages on (userFillsByTime). */
  fillsFrom(user: string, startTime: number, endTime = Number.MAX_SAFE_INTEGER, limit = 2000): FillRecord[] {
    const rows = this.s.fillsFrom.all(user, startTime, endTime, limit) as { body: string }[];
    return rows.map((r) => JSON.parse(r.body) as FillRecord);
  }
  insertLedger(user: string, rec: LedgerRecord): void {
    this.s.insertLedger.run(user, rec.time, rec.hash, JSON.stringify(rec.delta));
  }
  ledgerOf(user: string, startTime = 0, endTime = Number.MAX_SAFE_INTEGER): LedgerRecord[] {
    const rows = this.s.ledgerOf.all(user, startTime, endTime) as { time: number; hash: string; delta: string }[];
    return rows.map((r) => ({ time: r.time, hash: r.hash, delta: JSON.parse(r.delta) }));
  }

  /** The user's orders, most recently changed first (historicalOrders). */
  recentOrdersOf(user: string, limit = 2000): Order[] {
    return (this.s.recentOrdersOf.all(user, limit) as OrderRow[]).map(rowToOrder);
  }
  /** Frees a modified order's cloid for the order that replaces it. */
  clearCloid(oid: number): void {
    this.s.clearCloid.run(oid);
  }

  // ---- price history, funding, spot --------------------------------------------------------------
  addMarkHistory(coin: string, time: number, px: bigint): void {
    this.s.addMarkHistory.run(coin, time, F.format(px));
  }
  markHistory(coin: string, from: number, to: number): { time: number; px: bigint }[] {
    const rows = this.s.markHistory.all(coin, from, to) as { time: number; px: string }[];
    return rows.map((r) => ({ time: r.time, px: F.parse(r.px) }));
  }
  markBefore(coin: string, time: number): bigint | undefined {
    const r = this.s.markBefore.get(coin, time) as { px: string } | undefined;
    return r && F.parse(r.px);
  }
  /** Every user's fills in a time range, oldest first (candle volumes). */
  allFillsBetween(from: number, to: number): FillRecord[] {
    return (this.s.fillTimes.all(from, to) as { body: string }[]).map((r) => JSON.parse(r.body) as FillRecord);
  }
  addFundingRate(coin: string, time: number, rate: bigint): void {
    this.s.addFundingRate.run(coin, time, F.format(rate));
  }
  fundingRates(coin: string, from: number, to: number): { time: number; rate: bigint }[] {
    const rows = this.s.fundingRates.all(coin, from, to) as { time: number; rate: string }[];
    return rows.map((r) => ({ time: r.time, rate: F.parse(r.rate) }));
  }
  fundingTotals(user: string, coin: string): FundingTotals {
    const r = this.s.getFundingTotals.get(user, coin) as { all_time: string; since_open: string; since_change: string } | undefined;
    if (!r) return { allTime: 0n, sinceOpen: 0n, sinceChange: 0n };
    return { allTime: F.parse(r.all_time), sinceOpen: F.parse(r.since_open), sinceChange: F.parse(r.since_change) };
  }
  setFundingTotals(user: string, coin: string, t: FundingTotals): void {
    this.s.setFundingTotals.run(user, coin, F.format(t.allTime), F.format(t.sinceOpen), F.format(t.sinceChange));
  }
  spotUsdc(user: string): bigint {
    const r = this.s.getSpot.get(user) as { usdc: string } | undefined;
    return r ? F.parse(r.usdc) : 0n;
  }
  setSpotUsdc(user: string, usdc: bigint): void {
    this.s.setSpot.run(user, F.format(usdc));
  }

  // ---- agents and nonces -------------------------------------------------------------------------
  getAgent(address: string): Agent | undefined {
    const r = this.s.getAgent.get(address) as AgentRow | undefined;
    return r && rowToAgent(r);
  }
  agentsOf(user: string): Agent[] {
    return (this.s.agentsOf.all(user) as AgentRow[]).map(rowToAgent);
  }
  saveAgent(a: Agent): void {
    this.s.upsertAgent.run(a.address, a.user, a.name, a.validUntil, a.approvedAt);
  }
  deleteAgent(address: string): void {
    this.s.deleteAgent.run(address);
  }
  /** The signer's kept nonces, highest first. */
  noncesOf(signer: string): number[] {
    return (this.s.noncesOf.all(signer) as { nonce: number }[]).map((r) => r.nonce);
  }
  /** Records a nonce and keeps only the `keep` highest for that signer. */
  addNonce(signer: string, nonce: number, keep: number): void {
    this.s.insertNonce.run(signer, nonce);
    this.s.pruneNonces.run(signer, signer, keep);
  }
}

/** Funding paid by a position (positive = paid), as clearinghouseState's cumFunding. */
export interface FundingTotals { allTime: bigint; sinceOpen: bigint; sinceChange: bigint }

interface AgentRow { address: string; user: string; name: string; valid_until: number; approved_at: number }
const rowToAgent = (r: AgentRow): Agent => ({
  address: r.address, user: r.user, name: r.name, validUntil: r.valid_until, approvedAt: r.approved_at,
});
