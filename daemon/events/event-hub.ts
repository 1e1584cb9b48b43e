// Live vault events for Server-Sent Events streams. Events are stored first (vault_events, whose
// increasing id is the SSE id a client resumes from), then published here, after the commit; each
// stream only sees events of vaults its user is a party to.
export interface HubEvent {
  id: number;
  vault: string;
  type: string;
  time: number;
  data: Record<string, unknown>;
  /** The vault's parties, so streams can filter without a query per event. */
  investor: string;
  trader: string;
}

export interface Subscriber {
  user: string;
  sessionKey: string;
  push(event: HubEvent): void;
  end(): void;
}

export interface EventHub {
  publish(events: HubEvent[]): void;
  subscribe(sub: Subscriber): () => void;
  /** Ends every stream of one session (logout). */
  endSession(sessionKey: string): void;
  /** The sessions that have a stream open. */
  sessionKeys(): string[];
  /** Ends every stream (shutdown). */
  endAll(): void;
  size(): number;
}

export function createEventHub(): EventHub {
  const subs = new Set<Subscriber>();
  return {
    publish(events) {
      for (const e of events) {
        for (const s of subs) if (s.user === e.investor || s.user === e.trader) s.push(e);
      }
    },
    subscribe(sub) {
      subs.add(sub);
      return () => subs.delete(sub);
    },
    endSession(sessionKey) {
      for (const s of [...subs]) if (s.sessionKey === sessionKey) (subs.delete(s), s.end());
    },
    sessionKeys: () => [...new Set([...subs].map((s) => s.sessionKey))],
    endAll() {
      for (const s of [...subs]) (subs.delete(s), s.end());
    },
    size: () => subs.size,
  };
}
