// The breach policies, defined once. A policy is a signed term of each vault (its on-chain code is
// the uint8 both parties sign, VaultTypes.sol's MAX_BREACH_POLICY bounds it); this table says what
// each one lets the trader do while the vault is paused (the trade gate), what enforcement makes true
// on the exchange account while it is paused (vaults/enforcement.ts), and how people are told about
// it. The API's enums, the OpenAPI document, the CLI's help and the dashboard's options are built from
// it. Plain data with no imports, so the CLI and the dashboard can include it as they are.

export interface BreachPolicyRule {
  /** The name in the API, the CLI and the dashboard. */
  readonly name: string;
  /** The on-chain code: this policy's index in the table. */
  readonly code: number;
  /** While paused, the trader may still place orders that only reduce (reduce-only). */
  readonly reduceOnlyWhilePaused: boolean;
  /**
   * What enforcement requires while paused: which resting orders must go ("entries": all but the
   * protective triggers, a reduce-only stop-loss or take-profit, which stay armed until their position
   * is closed), and whether positions must.
   */
  readonly enforce: { readonly cancel: "all" | "entries" | "not-reduce-only"; readonly closePositions: boolean };
  /** One line, for help texts and option lists. */
  readonly summary: string;
  /** What a trader is told when an order is refused because the vault is paused. */
  readonly pausedRefusal: string;
}

export const BREACH_POLICY_TABLE = [
  {
    name: "pause", code: 0, reduceOnlyWhilePaused: false,
    enforce: { cancel: "entries", closePositions: false },
    summary: "resting entries canceled (stop-losses and take-profits stay armed); every vault order refused until the trader unpauses",
    pausedRefusal: "the vault was paused by its risk limits",
  },
  {
    name: "reduce-only", code: 1, reduceOnlyWhilePaused: true,
    enforce: { cancel: "not-reduce-only", closePositions: false },
    summary: "orders that are not reduce-only canceled; reduce-only orders stay and may still be placed",
    pausedRefusal: "the vault was paused by its risk limits; its breach policy allows only reduce-only orders",
  },
  {
    name: "flatten", code: 2, reduceOnlyWhilePaused: false,
    enforce: { cancel: "entries", closePositions: true },
    summary: "every resting order canceled and every position closed at once (its stops last until it is closed); then paused",
    pausedRefusal: "the vault was paused by its risk limits and its positions flattened",
  },
] as const satisfies readonly BreachPolicyRule[];

export type BreachPolicy = (typeof BREACH_POLICY_TABLE)[number]["name"];

/** The names in code order, as a tuple an enum schema takes. */
export const BREACH_POLICIES = BREACH_POLICY_TABLE.map((p) => p.name) as unknown as readonly [BreachPolicy, ...BreachPolicy[]];

export const DEFAULT_BREACH_POLICY: BreachPolicy = "pause";

export function breachPolicyCode(policy: BreachPolicy): number {
  return BREACH_POLICY_TABLE.findIndex((p) => p.name === policy);
}

/** A policy's rules by its on-chain code. An unknown code reads as "pause", the strictest reading of a term this daemon does not know. */
export function breachPolicyRule(code: number | null | undefined): BreachPolicyRule & { name: BreachPolicy } {
  return BREACH_POLICY_TABLE[code ?? 0] ?? BREACH_POLICY_TABLE[0];
}

export const breachPolicyName = (code: number | null | undefined): BreachPolicy => breachPolicyRule(code).name;

/** "pause: ...; reduce-only: ...": what each policy does, for help texts and the OpenAPI document. */
export const BREACH_POLICY_HELP = BREACH_POLICY_TABLE.map((p) => `${p.name}: ${p.summary}`).join("; ");

/** "0 pause, 1 reduce-only, 2 flatten": the codes, where a number is shown. */
export const BREACH_POLICY_CODES = BREACH_POLICY_TABLE.map((p) => `${p.code} ${p.name}`).join(", ");
