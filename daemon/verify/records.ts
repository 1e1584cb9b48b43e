// What a vault's verification reads, and what it answers. The verifier trusts none of the daemon's
// own figures: the chain's events and the exchange's fills, funding and ledger are its evidence. The
// daemon's records (what each reading was computed from, its order rows) are checked against them
// when the verification runs through the daemon.

/** The vault as its contract and factory tell it. */
export interface VaultTermsRecord {
  vault: string;
  investor: string;
  trader: string;
  exchangeAccount: string;
  /** Base units (6 decimals). */
  initialBalance: bigint;
  maxDrawdownBps: number;
  dailyDrawdownBps: number;
  traderShareBps: number;
  /** The creation block's time, Unix seconds. */
  createdAt: number;
  createdBlock: number;
}

/** One event of the vault (or a settlement-token transfer touching it), in chain order; `day` is its block's UTC day. */
export type ChainEvent = { block: number; logIndex: number; day: number } & (
  | { type: "BalanceUpdated"; balance: bigint; peak: bigint; dayStart: bigint; observedAt: number; drawdownBps: number; dailyDrawdownBps: number }
  | { type: "Paused"; reason: number }
  | { type: "Unpaused" }
  | { type: "Closed"; finalBalance: bigint; profit: bigint; traderShare: bigint; investorShare: bigint }
  | { type: "Withdrawn"; party: string; amount: bigint }
  | { type: "TokenIn"; amount: bigint }
  | { type: "TokenOut"; amount: bigint }
);

export interface ChainRecords {
  terms: VaultTermsRecord;
  events: ChainEvent[];
  /** The reading the contract holds now (state()): a whole history ends with it. */
  held: { observedAt: number; balance: bigint };
  /** The node served the vault's VaultCreated: a node prunes the oldest blocks first, so it served all after it too. */
  createdServed: boolean;
}

/** The exchange's own records of the account since the vault was created (amounts as the venue's decimal text). */
export interface ExchangeRecords {
  fills: Array<{ tid: number; oid: number; coin: string; side: "B" | "A"; sz: string; closedPnl: string; fee: string; time: number }>;
  funding: Array<{ time: number; usdc: string }>;
  ledger: Array<{ time: number; hash: string; delta: { type: string } & Record<string, unknown> }>;
  /** The account's orders with the exchange's status (the most recent the venue keeps). */
  orders?: Array<{ oid: number; status: string; statusTimestamp: number }>;
}

/** The daemon's own records, checked when the verification runs through it. */
export interface DaemonRecords {
  /** Unix ms (exchange clock): transfers after it are netted (the first reading's account state). Null before the first reading. */
  nettingFrom: number | null;
  readings: Array<{ observedAt: number; accountValue: string; external: bigint; stateTime: number; flat: boolean }>;
  orders: Array<{ orderId: number; status: string; updatedAt: number }>;
  /** Order rows whose exchange status changed before this (Unix ms) must have followed it already. */
  ordersSettledBefore: number;
  /**
   * The vault's events as the daemon's indexer stored them when the chain served them: what stands in
   * for the blocks a pruning node (the embedded chain) no longer serves. Escrow top-ups are its Funded
   * events (a token transfer sent straight to the vault is not among them).
   */
  chainEvents?: ChainEvent[];
}

export type InvariantName = "readings-netted" | "flat-points" | "breaches" | "settlement" | "orders";

export interface InvariantResult {
  invariant: InvariantName;
  status: "holds" | "broken" | "not-checked";
  /** How many readings, fills, events or orders the check went through. */
  checked: number;
  /** One line: what was checked, or why not. */
  summary: string;
  /** The first break, with the figures on both sides. */
  break?: { what: string; expected: string; actual: string };
}

export interface Verification {
  vault: string;
  /** daemon: every invariant, with the daemon's records; public: what the chain and the exchange alone show. */
  mode: "daemon" | "public";
  /** Unix seconds. */
  checkedAt: number;
  outcome: "holds" | "broken" | "unreadable";
  /** Why the records could not be read (outcome unreadable). */
  reason?: string;
  /** Where the records came from, when not all from the chain's node (a pruned history). */
  note?: string;
  invariants: InvariantResult[];
}

/** Raised by a source that cannot read what the verification needs. */
export class UnreadableError extends Error {}
