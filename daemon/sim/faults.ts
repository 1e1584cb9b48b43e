// Fault injection for the daemon's tests, reachable only through the programmatic API (never HTTP).
// Faults queue up and each one applies to the next `count` matching requests:
//   http500               not processed; answered with HTTP 500
//   timeout               not processed; the connection hangs for delayMs, then is closed unanswered
//   drop-after-processing processed and committed; then the connection is closed unanswered (or, with
//                         then: "http500", answered 500), so the caller cannot know the outcome
//   delay                 processed; answered after delayMs

export type FaultKind = "http500" | "timeout" | "drop-after-processing" | "delay";
export type FaultEndpoint = "exchange" | "info" | "any";

export interface FaultSpec {
  kind: FaultKind;
  /** How many requests it applies to (default 1). */
  count?: number;
  /** Which endpoint it applies to (default "exchange"). */
  endpoint?: FaultEndpoint;
  /** For timeout and delay (default 30 000 ms for timeout, 1 000 ms for delay). */
  delayMs?: number;
  /** For drop-after-processing: close the connection ("drop", default) or answer HTTP 500. */
  then?: "drop" | "http500";
}

export interface ActiveFault {
  kind: FaultKind;
  delayMs: number;
  then: "drop" | "http500";
}

export class FaultQueue {
  private queue: (FaultSpec & { left: number })[] = [];

  /** Queues a fault for the next matching request(s). */
  next(spec: FaultSpec): void {
    const count = spec.count ?? 1;
    if (!Number.isInteger(count) || count < 1) throw new RangeError("fault count must be a positive integer");
    this.queue.push({ ...spec, left: count });
  }

  clear(): void {
    this.queue = [];
  }

  /** Faults still waiting, with how many requests each has left. */
  pending(): { kind: FaultKind; endpoint: FaultEndpoint; left: number }[] {
    return this.queue.map((f) => ({ kind: f.kind, endpoint: f.endpoint ?? "exchange", left: f.left }));
  }

  /** Takes the first queued fault that applies to a request on `endpoint`. */
  take(endpoint: "exchange" | "info"): ActiveFault | undefined {
    const i = this.queue.findIndex((f) => (f.endpoint ?? "exchange") === endpoint || f.endpoint === "any");
    if (i < 0) return undefined;
    const f = this.queue[i];
    if (--f.left === 0) this.queue.splice(i, 1);
    return {
      kind: f.kind,
      delayMs: f.delayMs ?? (f.kind === "timeout" ? 30_000 : 1_000),
      then: f.then ?? "drop",
    };
  }
}
