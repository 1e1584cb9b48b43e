// Kysely's view of the database: one interface per table. Columns are snake_case; repositories map
// rows to camelCase objects. Times are Unix milliseconds (INTEGER; bigint on PostgreSQL) unless a
// column says otherwise. Both stores hand out integers as JS numbers.
import type { Generated, Insertable, Selectable } from "kysely";
import type { ChainTables } from "./schema-chain.js";
import type { ClusterTables } from "./schema-cluster.js";
import type { WebhookTables } from "./schema-webhooks.js";

export interface UsersTable {
  address: string; // EIP-55
  created_at: number;
}

/** Challenges as issued before 015: no longer written (challenges are stateless; auth-repo.ts). */
export interface AuthNoncesTable {
  nonce: string;
  address: string; // EIP-55, the address the nonce was issued to
  message: string; // the exact EIP-4361 text the daemon issued
  issued_at: number;
  expires_at: number;
}

/** Secrets the daemons on one database share, by name: "sign-in" keys the challenge nonces' HMAC. */
export interface AuthKeysTable {
  name: string;
  secret: string; // hex
  created_at: number;
}

/** A challenge nonce a login spent, kept until the nonce expires: the key refuses a second login with it. */
export interface AuthUsedNoncesTable {
  nonce: string;
  expires_at: number;
}

export interface SessionsTable {
  token_hash: string; // hex SHA-256 of the token; the token itself is never stored
  address: string;
  created_at: number;
  refreshed_at: number;
  expires_at: number; // sliding: refreshed_at + session lifetime
  absolute_expires_at: number; // cap that no refresh moves
}

export interface AgentsTable {
  address: string;
  account: string;
  sealed_key: string;
  created_at: number;
  approved_at: number | null;
  valid_until: number | null;
}

export type OrderStatus = "pending" | "resting" | "filled" | "canceled" | "rejected" | "unknown";

export interface OrdersTable {
  id: Generated<number>;
  cloid: string;
  user: string;
  account: string;
  vault_address: string | null;
  agent: string;
  idempotency_key: string | null;
  request_hash: string;
  symbol: string;
  asset: number;
  side: "buy" | "sell";
  size: string;
  price: string;
  tif: "Gtc" | "Ioc" | "Alo";
  reduce_only: number;
  market: number;
  status: OrderStatus;
  oid: number | null;
  filled_size: string | null;
  average_price: string | null;
  error_code: string | null;
  error_message: string | null;
  /** An entry's stop-loss and take-profit as they were answered (JSON, trading-service's ProtectionRecord[]). */
  protection: string | null;
  expires_at: number;
  created_at: number;
  updated_at: number;
}

/** A protective trigger the daemon placed, watched until its position is closed (vaults/stop-keeper.ts). */
export interface StopsTable {
  cloid: string;
  user: string;
  account: string;
  vault_address: string | null;
  symbol: string;
  kind: "sl" | "tp";
  side: "buy" | "sell";
  trigger_price: string;
  size: string;
  market: number;
  oid: number | null;
  state: "armed" | "fired" | "done";
  /** How it ended: filled, canceled, flat (its position closed otherwise), closed (the daemon's close filled), rejected. */
  outcome: string | null;
  position_seen: number;
  reason: string | null;
  attempts: Generated<number>;
  close_cloid: string | null;
  next_try_at: Generated<number>;
  created_at: number;
  updated_at: number;
}

/** FAILED: both signed, but the relay failed for good (the reason is in relay_error). */
export type ProposalStatus = "PENDING" | "ACCEPTED" | "REJECTED" | "EXPIRED" | "FAILED";

export interface ProposalsTable {
  id: Generated<number>;
  created_by: string;
  investor: string;
  trader: string;
  exchange_account: string;
  initial_balance: string;
  max_drawdown_bps: number;
  daily_drawdown_bps: number;
  deal_deadline: number;
  trader_share_bps: number;
  /** 0 pause, 1 reduce-only, 2 flatten. */
  breach_policy: Generated<number>;
  valid_until: number;
  salt: string;
  chain_id: number;
  factory: string;
  terms_hash: string;
  investor_signature: string | null;
  trader_signature: string | null;
  status: ProposalStatus;
  vault_address: string | null;
  create_tx: string | null;
  relay_error: string | null;
  rejected_by: string | null;
  created_at: number;
  updated_at: number;
}

export interface VaultTradesTable {
  id: Generated<number>;
  vault: string;
  seq: number;
  account: string;
  tid: number;
  oid: number;
  symbol: string;
  side: "buy" | "sell";
  size: string;
  price: string;
  pnl: string;
  fee: string;
  time_ms: number;
}

/** What the daemon's sim faucet (POST /api/sim/faucet) gave one account on one UTC day. */
export interface SimFaucetDaysTable {
  account: string; // EIP-55
  day: number; // UTC day: Unix ms / 86 400 000, floored
  granted: string; // USDC base units (6 decimals), decimal text
}

/** A single-use ticket for the event stream (auth/event-tickets.ts); only its SHA-256 is kept. */
export interface EventTicketsTable {
  hash: string;
  address: string;
  session_key: string;
  expires_at: number;
}

/** A notice addressed to one user (notices/user-notices.ts), stored once under its key. */
export interface UserNoticesTable {
  key: string;
  /** Dense and increasing, allocated under the "user_notices.id" sequence lock. */
  id: number;
  user: string; // EIP-55
  type: string;
  /** JSON of the notice's data, as the API would render it. */
  data: string;
  created_at: number;
}

/** How far the daemon has read the fills of an account it trades for outside any vault (notices/forced-fill-notices.ts). */
export interface AccountFillCursorsTable {
  account: string; // EIP-55
  /** Exchange ms of the newest fill read. */
  through_ms: number;
  /** Daemon ms of the last read. */
  read_at: number;
}

/** An operator alert now firing (monitor/alert-monitor.ts): its start was sent, its clear is not yet. */
export interface OperatorAlertsTable {
  key: string;
  /** The daemon a per-daemon condition is about; null for a shared one. */
  daemon: string | null;
  title: string;
  text: string;
  since: number;
}

/** One row per dense sequence allocated by reading its last number (db/name-lock.ts). */
export interface SequenceLocksTable {
  name: string;
}

export interface Database extends ChainTables, ClusterTables, WebhookTables {
  users: UsersTable;
  auth_nonces: AuthNoncesTable;
  auth_keys: AuthKeysTable;
  auth_used_nonces: AuthUsedNoncesTable;
  sessions: SessionsTable;
  agents: AgentsTable;
  orders: OrdersTable;
  proposals: ProposalsTable;
  vault_trades: VaultTradesTable;
  sim_faucet_days: SimFaucetDaysTable;
  sequence_locks: SequenceLocksTable;
  event_tickets: EventTicketsTable;
  user_notices: UserNoticesTable;
  account_fill_cursors: AccountFillCursorsTable;
  operator_alerts: OperatorAlertsTable;
  stops: StopsTable;
}

export type SessionRow = Selectable<SessionsTable>;
export type NewSession = Insertable<SessionsTable>;
export type NonceRow = Selectable<AuthNoncesTable>;
export type AgentRow = Selectable<AgentsTable>;
export type UserNoticeRow = Selectable<UserNoticesTable>;
export type AccountFillCursorRow = Selectable<AccountFillCursorsTable>;
export type OperatorAlertRow = Selectable<OperatorAlertsTable>;
export type OrderRow = Selectable<OrdersTable>;
export type StopRow = Selectable<StopsTable>;
export type NewStop = Insertable<StopsTable>;
export type NewOrder = Insertable<OrdersTable>;
export type ProposalRow = Selectable<ProposalsTable>;
export type NewProposal = Insertable<ProposalsTable>;
export type VaultTradeRow = Selectable<VaultTradesTable>;
