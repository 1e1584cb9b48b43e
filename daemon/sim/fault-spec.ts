// What a fault is and which ones the sim accepts: one check shared by the programmatic API
// (FaultQueue.next) and the HTTP control (POST /sim/faults), so both refuse the same input the same way.
//   http500               not processed; answered with HTTP 500
//   timeout               not processed; the connection hangs for delayMs, then is closed unanswered
//   drop-after-processing processed and committed; then the connection is closed unanswered (or, with
//                         then: "http500", answered 500), so the caller cannot know the outcome
//   delay                 processed; answered after delayMs

export const FAULT_KINDS = ["http500", "timeout", "drop-after-processing", "delay"] as const;
export const FAULT_ENDPOINTS = ["exchange", "info", "any"] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];
export type FaultEndpoint = (typeof FAULT_ENDPOINTS)[number];
export type FaultThen = "drop" | "http500";

export const MAX_FAULT_COUNT = 100_000;
export const MAX_FAULT_DELAY_MS = 600_000;
const MAX_ACTIONS = 50;
const MAX_ACTION_LENGTH = 64;
const FIELDS = ["kind", "count", "endpoint", "actions", "delayMs", "then"];

export interface FaultSpec {
  kind: FaultKind;
  /** How many requests it applies to (default 1, at most 100 000). */
  count?: number;
  /** Which endpoint it applies to (default "exchange"). */
  endpoint?: FaultEndpoint;
  /** Only /exchange requests whose action.type is one of these (e.g. "order", "cancel"). */
  actions?: string[];
  /** For timeout and delay (default 30 000 ms for timeout, 1 000 ms for delay; at most 600 000). */
  delayMs?: number;
  /** For drop-after-processing: close the connection ("drop", default) or answer HTTP 500. */
  then?: FaultThen;
}

/** A queued fault with its defaults filled in; null where a field does not apply. */
export interface PendingFault {
  kind: FaultKind;
  endpoint: FaultEndpoint;
  /** null: any request on the endpoint. */
  actions: string[] | null;
  left: number;
  delayMs: number | null;
  then: FaultThen | null;
}

/** Input that is not a fault; `problems` names each bad field. */
export class FaultSpecError extends RangeError {
  constructor(readonly problems: Record<string, string>) {
    super(Object.entries(problems).map(([field, why]) => `${field}: ${why}`).join("; "));
  }
}

const isIntIn = (v: unknown, lo: number, hi: number) => Number.isInteger(v) && (v as number) >= lo && (v as number) <= hi;
const oneOf = <T extends string>(list: readonly T[], v: unknown): v is T => list.includes(v as T);

function actionsProblem(v: unknown): string | undefined {
  const ok = Array.isArray(v) && v.length > 0 && v.length <= MAX_ACTIONS
    && v.every((a) => typeof a === "string" && a.length > 0 && a.length <= MAX_ACTION_LENGTH);
  if (!ok) return `must be a non-empty array (at most ${MAX_ACTIONS}) of action types such as ["order", "cancel"]`;
  return undefined;
}

function problemsOf(o: Record<string, unknown>): Record<string, string> {
  const p: Record<string, string> = {};
  for (const k of Object.keys(o)) if (!FIELDS.includes(k)) p[k] = `unknown field; expected ${FIELDS.join(", ")}`;
  if (!oneOf(FAULT_KINDS, o.kind)) p.kind = `must be one of ${FAULT_KINDS.join(", ")}`;
  if (o.count !== undefined && !isIntIn(o.count, 1, MAX_FAULT_COUNT)) p.count = `must be a positive integer up to ${MAX_FAULT_COUNT}`;
  if (o.endpoint !== undefined && !oneOf(FAULT_ENDPOINTS, o.endpoint)) p.endpoint = `must be one of ${FAULT_ENDPOINTS.join(", ")}`;
  else if (o.actions !== undefined && o.endpoint === "info") p.endpoint = "must be exchange or any with actions (actions filter /exchange requests)";
  const actions = o.actions === undefined ? undefined : actionsProblem(o.actions);
  if (actions) p.actions = actions;
  if (o.delayMs !== undefined && o.kind !== "timeout" && o.kind !== "delay") p.delayMs = "applies only to timeout and delay";
  else if (o.delayMs !== undefined && !isIntIn(o.delayMs, 0, MAX_FAULT_DELAY_MS)) p.delayMs = `must be an integer from 0 to ${MAX_FAULT_DELAY_MS} (milliseconds)`;
  if (o.then !== undefined && o.kind !== "drop-after-processing") p.then = "applies only to drop-after-processing";
  else if (o.then !== undefined && o.then !== "drop" && o.then !== "http500") p.then = "must be drop or http500";
  return p;
}

/** The fault `raw` describes, defaults filled in; throws FaultSpecError naming every bad field. */
export function checkFaultSpec(raw: unknown): PendingFault {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    throw new FaultSpecError({ body: `expected an object {${FIELDS.join(", ")}}` });
  }
  const o = raw as Record<string, unknown>;
  const problems = problemsOf(o);
  if (Object.keys(problems).length > 0) throw new FaultSpecError(problems);
  const spec = o as unknown as FaultSpec;
  return {
    kind: spec.kind,
    endpoint: spec.endpoint ?? "exchange",
    actions: spec.actions ? [...spec.actions] : null,
    left: spec.count ?? 1,
    delayMs: spec.kind === "timeout" ? spec.delayMs ?? 30_000 : spec.kind === "delay" ? spec.delayMs ?? 1_000 : null,
    then: spec.kind === "drop-after-processing" ? spec.then ?? "drop" : null,
  };
}
