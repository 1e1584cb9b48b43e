// The fault queue the sim's HTTP server consults before each /info and /exchange request. Tests
// fill it in-process (sim.faults.next) and any loopback client over HTTP (/sim/faults, controls.ts);
// what each kind does is in fault-spec.ts. Faults apply in queue order: a request takes the first
// queued fault that matches it, and a fault that does not match a request is left for a later one.
import { checkFaultSpec, type FaultKind, type FaultSpec, type FaultThen, type PendingFault } from "./fault-spec.js";

export type { FaultEndpoint, FaultKind, FaultSpec, PendingFault } from "./fault-spec.js";

export interface ActiveFault {
  kind: FaultKind;
  delayMs: number;
  then: FaultThen;
}

/** The action type of an /exchange body, if it has one. */
function actionType(body: unknown): string | undefined {
  const action = (body as { action?: { type?: unknown } } | null | undefined)?.action;
  return typeof action?.type === "string" ? action.type : undefined;
}

export class FaultQueue {
  private queue: PendingFault[] = [];

  /** Queues a fault for the next matching request(s); throws FaultSpecError for a bad spec. */
  next(spec: FaultSpec): void {
    this.queue.push(checkFaultSpec(spec));
  }

  clear(): void {
    this.queue = [];
  }

  /** Faults still waiting, with how many requests each has left. */
  pending(): PendingFault[] {
    return this.queue.map((f) => ({ ...f, actions: f.actions && [...f.actions] }));
  }

  /** Takes the first queued fault that applies to a request on `endpoint` with this body. */
  take(endpoint: "exchange" | "info", body?: unknown): ActiveFault | undefined {
    const type = endpoint === "exchange" ? actionType(body) : undefined;
    const i = this.queue.findIndex((f) =>
      (f.endpoint === endpoint || f.endpoint === "any") && (f.actions === null || (type !== undefined && f.actions.includes(type))));
    if (i < 0) return undefined;
    const f = this.queue[i];
    if (--f.left === 0) this.queue.splice(i, 1);
    return { kind: f.kind, delayMs: f.delayMs ?? 0, then: f.then ?? "drop" };
  }
}
