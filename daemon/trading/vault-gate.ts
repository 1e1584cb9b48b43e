// What trading needs from vaults, passed in at composition so trading never imports the vault
// service. `forTrade` runs SPEC 4.5's vault checks (caller is the trader, not closed, not paused,
// deadline, fresh balance, pre-trade breach check) and says which exchange account to use.

export interface VaultAccount {
  /** The exchange account (master address) the vault trades. */
  account: string;
  /** Hyperliquid's own vaultAddress, set only for a sub-account of the agent's master. */
  subAccount?: string;
}

export interface VaultGate {
  forTrade(user: string, vaultAddress: string): Promise<VaultAccount>;
  /** Reads (orders, positions) of a vault the caller trades or invests in. */
  forRead(user: string, vaultAddress: string): Promise<VaultAccount>;
}
