// Reads a vault's balance from its exchange account: equity (unrealized PnL included) minus the USDC
// moved in or out by others since the vault started, so a deposit is not profit and a withdrawal is
// not a drawdown.
import type { VaultRow } from "../db/schema-chain.js";
import type { ExchangeAdapter } from "../exchange/types.js";
import type { BalanceReading } from "../vaults/vault-chain.js";
import { vaultBalance } from "../vaults/vault-math.js";

export async function readVaultBalance(exchange: ExchangeAdapter, vault: VaultRow, nowMs: number): Promise<BalanceReading> {
  // Block times are whole seconds: a transfer in the vault's creation second counts as capital the
  // account already had (what initialBalance describes), not as an external transfer.
  const startMs = (vault.created_at + 1) * 1000;
  const [state, ledger] = await Promise.all([
    exchange.accountState(vault.exchange_account),
    exchange.ledgerUpdates(vault.exchange_account, startMs),
  ]);
  const external = ledger.filter((u) => u.time >= startMs).map((u) => u.usdcDelta);
  // The contract ignores a reading that is not newer than the one it holds: never repeat a second.
  const observedAt = Math.max(Math.floor(nowMs / 1000), (vault.last_observed_at ?? 0) + 1);
  return { vault: vault.address, balance: vaultBalance(state.accountValue, external), observedAt };
}
