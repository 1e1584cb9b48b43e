// Tables that let several daemons share one database: who is alive and who holds what (leases with
// fencing epochs). The operator transactions handed to the one daemon that sends them are in schema-chain.ts.
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

export interface ClusterTables {
  daemons: DaemonsTable;
  leases: LeasesTable;
}

export type LeaseRow = Selectable<LeasesTable>;
