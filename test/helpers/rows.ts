// Rows the store tests insert directly through the repositories: a vault as the indexer would
// project its VaultCreated, with random addresses and hashes unless given.
import { hexlify, randomBytes } from "ethers";
import type { NewVault } from "../../daemon/db/schema-chain.js";

export const randomAddress = () => hexlify(randomBytes(20));
export const randomHash = () => hexlify(randomBytes(32));

export const vaultRow = (address = randomAddress()): NewVault => ({
  address, factory: randomAddress(), investor: randomAddress(), trader: randomAddress(), exchange_account: randomAddress(),
  initial_balance: "10000000000", max_drawdown_bps: 5000, daily_drawdown_bps: 2500, deal_deadline: 2_000_000_000,
  trader_share_bps: 2000, terms_hash: randomHash(), salt: randomHash(), created_block: 1, created_tx: randomHash(), created_at: 1_700_000_000,
  current_balance: "10000000000", peak_balance: "10000000000", day_start_balance: "10000000000", updated_at: 1_700_000_000,
  account_mode: null, account_mode_checked_at: null,
});
