// The list of migrations, in order. Kysely's FileMigrationProvider reads a folder at run time, which
// breaks once the code is compiled to dist/ and bundled; a static list works from sources and builds.
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
};
