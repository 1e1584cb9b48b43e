// What the vault services need from the chain, passed in at composition (the chain module's sender
// and receipt write-through implement it). Every call that sends a transaction waits for its
// receipt and writes the receipt's events to the database before it resolves, so an API answer
// never lags the chain.
import type { TypedDataDocument, VaultTerms } from "../chain/terms.js";

/** Reason code of the operator's pause when the account's mode changed (TradingVault.pause). */
export const OPERATOR_PAUSE_ACCOUNT_MODE = 4;

export interface BalanceReading {
  vault: string;
  /** USDC base units. */
  balance: bigint;
  /** Unix seconds the balance was observed at. */
  observedAt: number;
  /** What the balance was computed from, kept beside it so anyone can check the netting. */
  source: ReadingSource;
}

export interface ReadingSource {
  /** The account value the exchange answered (decimal text, as it came). */
  accountValue: string;
  /** Net USDC moved in by others (base units) after `nettingFrom` up to `stateTime`, subtracted. */
  external: bigint;
  /** Unix ms (exchange clock) after which transfers are netted: the first reading's own stateTime. */
  nettingFrom: number;
  /** The exchange's own time (Unix ms) of the account state read. */
  stateTime: number;
  /** The account held no position. */
  flat: boolean;
}

/** A vault's settlement escrow as the contract sees it, in USDC base units. */
export interface EscrowReading {
  /** Settlement tokens the vault holds. */
  held: bigint;
  /** The trader's share not yet paid (0 before the close). */
  owedToTrader: bigint;
}

export interface VaultChainOps {
  chainId(): number;
  factory(): string;
  createVault(terms: VaultTerms, investorSignature: string, traderSignature: string): Promise<{ vault: string; txHash: string }>;
  /**
   * Writes readings in as few transactions as fit a block; returns the vaults the batches paused.
   * Every batch is tried; `failures` holds the errors of those that failed (the rest applied).
   */
  updateBalances(readings: BalanceReading[]): Promise<{ paused: string[]; txHashes: string[]; failures: unknown[] }>;
  closeVault(vault: string): Promise<{ txHash: string }>;
  unpauseVault(vault: string): Promise<{ txHash: string }>;
  /** The operator's pause (reason 4: the account's mode changed); a no-op on a paused vault. */
  pauseVault(vault: string, reason: number): Promise<{ txHash: string }>;
  withdraw(vault: string, party: string): Promise<{ txHash: string; amount: bigint; recipient: string }>;
  /** Reads the escrow (no transaction). */
  escrow(vault: string): Promise<EscrowReading>;
  permitTypedData(vault: string, amount: bigint, deadline: number): Promise<TypedDataDocument>;
  fundWithPermit(vault: string, amount: bigint, deadline: number, signature: string): Promise<{ txHash: string }>;
}
