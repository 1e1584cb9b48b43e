// The lists of migrations, in order, one per store. Kysely's FileMigrationProvider reads a folder at
// run time, which breaks once the code is compiled to dist/ and bundled; static lists work from
// sources and builds.
//
// SQLite keeps its whole history (a data directory of any age upgrades). PostgreSQL starts from a
// baseline that creates the schema SQLite has after 009 in one step. From 010 on, a migration runs on
// both and is listed in both: write it with kysely's schema builder and SQL both dialects accept (no
// rowid, json_object, pragma or sqlite_master; no serial, ::casts or pg_* functions), give new
// integer columns that can pass 2^31 (times, ids, oids) the type "bigint" (SQLite treats it as its
// integer), and test/db/schema-parity keeps the two schemas equal.
import type { Migration } from "kysely";
import * as auth from "./2026-11-23-001-auth.js";
import * as trading from "./2026-11-23-002-trading.js";
import * as chain from "./2026-11-23-003-chain.js";
import * as vaults from "./2026-11-23-004-vaults.js";
import * as breachPolicy from "./2026-11-23-005-breach-policy.js";
import * as chainSnapshots from "./2026-11-23-006-chain-snapshots.js";
import * as compactEvents from "./2026-11-24-007-compact-events.js";
import * as simFaucetDays from "./2026-11-25-008-sim-faucet-days.js";
import * as enforcement from "./2026-11-26-009-enforcement.js";
import * as postgresBaseline from "./2026-11-26-009-postgres-baseline.js";
import * as sequenceLocks from "./2026-11-27-010-sequence-locks.js";
import * as cluster from "./2026-11-27-011-cluster.js";
import * as eventTickets from "./2026-11-27-012-event-tickets.js";
import * as webhooks from "./2026-11-27-013-webhooks.js";
import * as notices from "./2026-11-27-014-notices.js";
import * as orderProtection from "./2026-11-27-015-order-protection.js";
import * as statelessSignIn from "./2026-11-27-016-stateless-sign-in.js";
import * as vaultReadings from "./2026-12-01-017-vault-readings.js";
import * as deliveryTimes from "./2026-12-01-018-delivery-times.js";
import * as limitWarnings from "./2026-12-02-019-limit-warnings.js";
import * as accountFillCursors from "./2026-12-02-020-account-fill-cursors.js";
import * as stops from "./2026-12-02-021-stops.js";
import * as senderEpochs from "./2026-12-02-022-sender-epochs.js";

/** Migrations that run on both stores, after each one's history or baseline. */
const both: Record<string, Migration> = {
  "2026-11-27-010-sequence-locks": sequenceLocks,
  "2026-11-27-011-cluster": cluster,
  "2026-11-27-012-event-tickets": eventTickets,
  "2026-11-27-013-webhooks": webhooks,
  "2026-11-27-014-notices": notices,
  "2026-11-27-015-order-protection": orderProtection,
  "2026-11-27-016-stateless-sign-in": statelessSignIn,
  "2026-12-01-017-vault-readings": vaultReadings,
  "2026-12-01-018-delivery-times": deliveryTimes,
  "2026-12-02-019-limit-warnings": limitWarnings,
  "2026-12-02-020-account-fill-cursors": accountFillCursors,
  "2026-12-02-021-stops": stops,
  "2026-12-02-022-sender-epochs": senderEpochs,
};

export const sqliteMigrations: Record<string, Migration> = {
  "2026-11-23-001-auth": auth,
  "2026-11-23-002-trading": trading,
  "2026-11-23-003-chain": chain,
  "2026-11-23-004-vaults": vaults,
  "2026-11-23-005-breach-policy": breachPolicy,
  "2026-11-23-006-chain-snapshots": chainSnapshots,
  "2026-11-24-007-compact-events": compactEvents,
  "2026-11-25-008-sim-faucet-days": simFaucetDays,
  "2026-11-26-009-enforcement": enforcement,
  ...both,
};

export const postgresMigrations: Record<string, Migration> = {
  "2026-11-26-009-postgres-baseline": postgresBaseline,
  ...both,
};
