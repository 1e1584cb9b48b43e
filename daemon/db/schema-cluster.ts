// Tables that let several daemons share one database: who is alive, who holds what (leases with
// fencing epochs), and the operator transactions handed to the one daemon that sends them.
import type { Selectable } from "kysely";

export interface DaemonsTable {
  id: string;
  started_at: number;
  /** Unix ms, the database's clock: a daemon whose heartbeat is older than a lease's time is gone. */
  heartbeat_at: number;
  /** JSON: pid, host, the API's address; for operators reading the table. */
  info: string;
}

export interface LeasesTable {
  /** "vault:<address>" or "sender:<chain key>". */
  key: string;
  holder: string;
  /** Grows at every acquisition (never at a renewal): a write made under an older epoch is stale. */
  epoch: number;
  /** Unix ms, the database's clock. */
  expires_at: number;
}

export interface TxRequestsTable {
  id: string;
  requester: string;
  /** The lease the request was made under ("vault:<address>"), checked when it is queued and when it is sent. */
  fence_key: string | null;
  fence_epoch: number | null;
  to: string | null;
  data: string;
  /** Wei, decimal text. */
  value: string | null;
  gas_limit: string | null;
  nonce: number | null;
  purpose: string;
  /** queued | sent | failed */
  status: string;
  tx_hash: string | null;
  tx_nonce: number | null;
  /** JSON {code, message, details} of the AppError the sender met. */
  error: string | null;
  created_at: number;
  updated_at: number;
}

export interface ClusterTables {
  daemons: DaemonsTable;
  leases: LeasesTable;
  tx_requests: TxRequestsTable;
}

export type LeaseRow = Selectable<LeasesTable>;
export type TxRequestRow = Selectable<TxRequestsTable>;
