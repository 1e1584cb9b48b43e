// The enforcement rows of paused vaults (vaults/enforcement.ts owns what they mean).
import type { Executor } from "./store.js";
import type { EnforcementRow } from "./schema-chain.js";

export function allEnforcement(db: Executor): Promise<EnforcementRow[]> {
  return db.selectFrom("vault_enforcement").selectAll().execute();
}

export async function saveEnforcement(db: Executor, row: EnforcementRow): Promise<void> {
  const { vault, ...rest } = row;
  await db.insertInto("vault_enforcement").values(row).onConflict((oc) => oc.column("vault").doUpdateSet(rest)).execute();
}

export async function dropEnforcement(db: Executor, vault: string): Promise<void> {
  await db.deleteFrom("vault_enforcement").where("vault", "=", vault).execute();
}
