// The vault event types, the one list: contract events the indexer stores and the daemon's own. Each
// has its data schema in http/routes/event-responses.ts (`vaultEventData` is typed by this list, so adding a type
// here without its schema, or a schema without its type, does not compile), and the dashboard listens
// for exactly these on its event stream. Plain data with no imports, for the dashboard's bundle.
export const VAULT_EVENT_TYPES = [
  "VaultCreated", "BalanceUpdated", "Paused", "Unpaused", "Closed", "Funded", "Withdrawn",
  "Fill", "BalanceMismatch", "OrdersCanceled", "Flattened", "AccountModeChanged", "EnforcementFailing",
] as const;

export type VaultEventType = (typeof VAULT_EVENT_TYPES)[number];
