// A tiny client for the sim's fault queue over real HTTP (GET/POST/DELETE /sim/faults), for tests that
// drive a sim they did not start in-process (a daemon's embedded sim, a sim in another process).
import type { FaultSpec, PendingFault } from "../../daemon/sim/index.js";

/** The sim refused the request: `status` is the HTTP status, `details` names each bad field. */
export class SimFaultsError extends Error {
  constructor(readonly status: number, message: string, readonly details?: Record<string, string>) {
    super(message);
  }
}

export interface SimFaults {
  /** Queues a fault; resolves to the queue after it. */
  add(spec: FaultSpec): Promise<PendingFault[]>;
  list(): Promise<PendingFault[]>;
  /** Empties the queue; resolves to [] */
  clear(): Promise<PendingFault[]>;
}

export function simFaults(simUrl: string): SimFaults {
  const url = new URL("/sim/faults", simUrl);
  async function call(method: "GET" | "POST" | "DELETE", body?: unknown): Promise<PendingFault[]> {
    const res = await fetch(url, {
      method,
      ...(body === undefined ? {} : { headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) }),
    });
    const text = await res.text();
    let json: any;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    if (res.status !== 200 || json?.ok !== true) {
      throw new SimFaultsError(res.status, `${method} /sim/faults answered ${res.status}: ${json?.error ?? text}`, json?.details);
    }
    return json.pending;
  }
  return { add: (spec) => call("POST", spec), list: () => call("GET"), clear: () => call("DELETE") };
}
