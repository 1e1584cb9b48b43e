// The vault event types, the one list: contract events the indexer stores and the daemon's own. Each
// has its data schema in http/routes/event-responses.ts (`vaultEventData` is typed by this list, so adding a type
// here without its schema, or a schema without its type, does not compile), and the dashboard listens
// for exactly these on its event stream. Plain data with no imports, for the dashboard's bundle.
export const VAULT_EVENT_TYPES = [
  "VaultCreated", "BalanceUpdated", "Paused", "Unpaused", "Closed", "Funded", "Withdrawn",
  "Fill", "BalanceMismatch", "OrdersCanceled", "Flattened", "AccountModeChanged", "EnforcementFailing",
  "DeadlineApproaching", "StopFailed", "StopFilled", "Liquidated", "Deleveraged", "LimitNear",
] as const;

export type VaultEventType = (typeof VAULT_EVENT_TYPES)[number];

// Notices addressed to one user, not to a vault's parties: a proposal has no vault yet, and an agent
// key's expiry concerns the investor alone. Stored in user_notices (notices/user-notices.ts), with
// their data schemas in http/routes/event-responses.ts (`userNoticeData`) and their words in the describer.
// The protection notices (a stop that did not fill, a liquidation) tell the same of an account outside
// any vault as the vault events of the same name tell of a vault's.
export const USER_NOTICE_TYPES = [
  "ProposalSigned", "AgentExpiring", "AgentLapsed", "StopFailed", "StopFilled", "Liquidated", "Deleveraged",
] as const;

export type UserNoticeType = (typeof USER_NOTICE_TYPES)[number];
