// Tables of the chain module: the operator's transaction journal, the indexer's cursor, vaults and
// their events. Times in these tables are Unix SECONDS (block times); money is TEXT holding integer
// base units of the 6-decimal settlement token; booleans are INTEGER 0/1.
import type { Generated, Insertable, Selectable } from "kysely";

/**
 * pending: signed and written, broadcast not yet acknowledged (in doubt until settled);
 * sent: the node accepted it; confirmed / reverted: mined with status 1 / 0;
 * replaced: another transaction with the same nonce was mined (a gas bump of it, usually);
 * failed: the node refused it outright, so it never existed on-chain.
 */
export type TxStatus = "pending" | "sent" | "confirmed" | "reverted" | "replaced" | "failed";

export interface TxJournalTable {
  id: Generated<number>;
  /** Which chain: "31337" for the embedded chain, "external-<chainId>" for an RPC chain. */
  chain: string;
  hash: string;
  nonce: number;
  /**
   * The signed transaction: what a rebuild of the embedded chain replays. Stored deflated (a BLOB);
   * rows of older data directories hold 0x hex text. chain-repo.ts reads both and hands out 0x hex.
   */
  raw: string | Buffer;
  /** The contract function (or "deploy:<Contract>") the transaction calls. */
  purpose: string;
  status: TxStatus;
  /** Row id of the transaction this one re-prices (gas bump), else null. */
  replaces: number | null;
  /** The tx_requests row another daemon handed this transaction in by (several daemons on one database), else null. */
  request_id: string | null;
  /** The daemon that signed it while holding the sender's lease (several daemons on one database), else null. */
  sender: string | null;
  /** The sender lease's epoch it was signed under, checked in the transaction that wrote this row; else null. */
  sender_epoch: number | null;
  block_number: number | null;
  block_time: number | null;
  created_at: number;
  updated_at: number;
  error: string | null;
}

export interface ChainCursorTable {
  name: string;
  /** Last block fully processed. */
  block: number;
}

export interface VaultsTable {
  address: string; // EIP-55
  /** Small unique number, in creation order: what vault_events refers to the vault by. */
  num: number;
  factory: string;
  investor: string;
  trader: string;
  exchange_account: string;
  initial_balance: string;
  max_drawdown_bps: number;
  daily_drawdown_bps: number;
  deal_deadline: number;
  trader_share_bps: number;
  /** The policy's code (vaults/breach-policies.ts: 0 pause, 1 reduce-only, 2 flatten). */
  breach_policy: Generated<number>;
  terms_hash: string;
  salt: string;
  created_block: number;
  created_tx: string;
  created_at: number;
  current_balance: string;
  peak_balance: string;
  day_start_balance: string;
  /** observedAt of the last applied reading; null until the first one. */
  last_observed_at: number | null;
  paused: Generated<number>;
  /** Bits of the last pause: 1 max drawdown, 2 daily; 4 the operator's (account mode changed). */
  pause_reason: number | null;
  /** Chain position (block * 1e6 + log index) of the last Paused/Unpaused applied, so an older one read late cannot undo a newer one. */
  pause_pos: Generated<number>;
  closed: Generated<number>;
  closed_at: number | null;
  final_balance: string | null;
  /** Signed. */
  profit: string | null;
  trader_share: string | null;
  investor_share: string | null;
  funded_total: Generated<string>;
  paid_trader: Generated<string>;
  paid_investor: Generated<string>;
  /** Number of vault_events rows (the last seq). */
  event_count: Generated<number>;
  /** The exchange account's abstraction mode as the oracle last read it (userAbstraction); null until read. */
  account_mode: string | null;
  /** Milliseconds; when account_mode was last read. */
  account_mode_checked_at: number | null;
  /** 1 once DeadlineApproaching was recorded (vaults/deadline-notices.ts). */
  deadline_notice: Generated<number>;
  /**
   * Unix ms (the exchange's clock): transfers after this are netted out of the vault's readings. The
   * time of the account state its first reading was taken from; null until that reading is stored.
   */
  netting_from: number | null;
  /**
   * Per drawdown limit, the highest LimitNear level recorded (0, 80 or 90) since the drawdown was last
   * below 70% of the limit (vaults/limit-warnings.ts).
   */
  max_limit_warned: Generated<number>;
  daily_limit_warned: Generated<number>;
  updated_at: number;
}

export interface VaultEventsTable {
  /** Durable and increasing: what an SSE client resumes from (Last-Event-ID). */
  id: Generated<number>;
  /** vaults.num */
  vault_num: number;
  /** Dense per-vault sequence (1, 2, 3...), so any page is an index range. */
  seq: number;
  /** The contract event name (BalanceUpdated, Paused, ...) or a daemon-side event type. */
  type: string;
  /** chain_txs.id; null for daemon-side events. */
  tx: number | null;
  log_index: number | null;
  block_number: number | null;
  time: number;
  /** JSON of the decoded fields (db/event-data.ts); amounts as decimal strings of base units. */
  data: string;
}

/** What one balance reading was computed from (vaults/balance-reader.ts), keyed by its observedAt. */
export interface VaultReadingsTable {
  vault_num: number;
  observed_at: number;
  /** The exchange's account value, decimal text as it answered. */
  account_value: string;
  /** Net external transfers subtracted, integer base units (signed). */
  external: string;
  /** Unix ms: the exchange's time of the account state. */
  state_time: number;
  /** 1 when the account held no position. */
  flat: number;
}

/** Each vault's last verification (verify/). */
export interface VaultVerificationsTable {
  vault_num: number;
  /** Unix seconds. */
  checked_at: number;
  outcome: string;
  /** JSON of the rendered verification. */
  result: string;
}

/** Hashes of the transactions that emitted vault events, each stored once. */
export interface ChainTxsTable {
  id: Generated<number>;
  hash: string;
}

/** An event as the rest of the daemon sees it: the vault's address and the transaction's hash. */
export interface VaultEventRow {
  id: number;
  vault: string;
  seq: number;
  type: string;
  tx_hash: string | null;
  log_index: number | null;
  block_number: number | null;
  time: number;
  /** As stored: read it with unpackEventData (db/event-data.ts). */
  data: string;
}

/** One snapshot of the embedded chain's state (a file in <dataDir>/chain/snapshots/). */
export interface ChainSnapshotsTable {
  id: Generated<number>;
  chain: string;
  /** File name, relative to <dataDir>/chain/snapshots/. */
  file: string;
  /** The operator's nonce in the snapshot: every operator transaction below it is included. */
  operator_nonce: number;
  /** tx_journal.id of the newest journal entry the snapshot includes; null when none. */
  journal_id: number | null;
  height: number;
  bytes: number;
  /** Of the file's bytes: a torn or altered file is refused before Anvil reads it. */
  sha256: string;
  anvil_version: string;
  created_at: number;
}

/** How a paused vault's breach policy is being enforced (vaults/enforcement.ts); one row per paused vault. */
export interface VaultEnforcementTable {
  vault: string;
  /** The Paused event's chain position: a new pause starts a new row. */
  pause_pos: number;
  state: "holds" | "enforcing" | "failing";
  /** Unix ms. */
  since: number;
  /** Unix ms. */
  started_at: number;
  attempts: number;
  last_error: string | null;
  canceled_orders: number;
  /** JSON: positions closed. */
  closed: string;
  /** JSON: positions left below the minimum order value. */
  dust: string;
  outcome_recorded: number;
  failing_recorded: number;
  updated_at: number;
}

/** Operator transactions a daemon hands to the one that sends them (several daemons on one database). */
export interface TxRequestsTable {
  id: string;
  requester: string;
  to: string | null;
  data: string;
  /** Wei, decimal text. */
  value: string | null;
  gas_limit: string | null;
  nonce: number | null;
  purpose: string;
  /** queued | claimed (the sender is signing it) | sent | failed | abandoned (the requester gave up before anyone claimed it) */
  status: string;
  tx_hash: string | null;
  tx_nonce: number | null;
  /** JSON {code, message, details} of the AppError the sender met. */
  error: string | null;
  /** The sender lease's epoch of the daemon that claimed it: only that epoch may sign it. */
  sent_epoch: number | null;
  created_at: number;
  updated_at: number;
}

/** The deployments record of each chain (chain/deployments.ts), as JSON. */
export interface DeploymentsTable {
  key: string;
  record: string;
}

export interface ChainTables {
  tx_journal: TxJournalTable;
  chain_snapshots: ChainSnapshotsTable;
  chain_cursor: ChainCursorTable;
  vaults: VaultsTable;
  vault_events: VaultEventsTable;
  vault_readings: VaultReadingsTable;
  vault_verifications: VaultVerificationsTable;
  chain_txs: ChainTxsTable;
  vault_enforcement: VaultEnforcementTable;
  tx_requests: TxRequestsTable;
  deployments: DeploymentsTable;
}

/** A journal row as the sender and the replay use it: `raw` as 0x hex. */
export type TxJournalRow = Omit<Selectable<TxJournalTable>, "raw"> & { raw: string };
export type NewTxJournal = Omit<Insertable<TxJournalTable>, "raw"> & { raw: string };
export type VaultRow = Selectable<VaultsTable>;
/** The number is the database's to assign. */
export type NewVault = Omit<Insertable<VaultsTable>, "num">;
export type ChainSnapshotRow = Selectable<ChainSnapshotsTable>;
export type EnforcementRow = Selectable<VaultEnforcementTable>;
export type NewChainSnapshot = Insertable<ChainSnapshotsTable>;
export type TxRequestRow = Selectable<TxRequestsTable>;
