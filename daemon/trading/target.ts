// The exchange account an order or a read goes to, already cleared by the caller: the user's own
// account, or a vault's that the vault service's gate let through. Trading knows nothing of vaults
// beyond this.

export interface Target {
  /** The exchange account (master address). */
  account: string;
  /** Hyperliquid's own vaultAddress, set only for a sub-account of the agent's master. */
  subAccount?: string;
  /** Our vault contract, when the order trades a vault's capital (recorded in the audit trail only). */
  vaultAddress?: string;
}
