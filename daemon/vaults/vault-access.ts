// Who may do what with a vault (DESIGN section 4): strangers get 404 (never another's data), parties
// without the role get 403.
import type { Executor } from "../db/store.js";
import * as vaultsRepo from "../db/vaults-repo.js";
import type { VaultRow } from "../db/schema-chain.js";
import { AppError } from "../errors.js";

export type Role = "investor" | "trader";

export async function vaultFor(db: Executor, user: string, address: string): Promise<{ vault: VaultRow; role: Role }> {
  const vault = await vaultsRepo.findVault(db, address);
  if (!vault || (vault.investor !== user && vault.trader !== user)) throw new AppError("NOT_FOUND", `no vault ${address}`);
  return { vault, role: vault.trader === user ? "trader" : "investor" };
}

export async function vaultWithRole(db: Executor, user: string, address: string, allowed: Role[], action: string) {
  const found = await vaultFor(db, user, address);
  if (!allowed.includes(found.role)) {
    throw new AppError("FORBIDDEN", `only the vault's ${allowed.join(" or ")} may ${action}`);
  }
  return found;
}

export function assertOpen(v: VaultRow): void {
  if (v.closed) throw new AppError("VAULT_CLOSED", "the vault is closed");
}
