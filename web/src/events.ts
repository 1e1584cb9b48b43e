// The live stream of the user's vault events (GET /api/events, Server-Sent Events). On this origin
// the session cookie goes with the request. EventSource retries by itself (sending Last-Event-ID)
// while the server is unreachable; when the server refuses (a 401 after the session ended) it gives
// up, so the page opens a new stream with ?lastEventId= the last id it saw: nothing lost or repeated.
// A page on another site would take a ticket (POST /api/events/ticket) for each new stream instead.
import { VAULT_EVENT_TYPES } from "../../daemon/events/event-types.js";
import type { StreamEvent } from "../../daemon/http/responses.js";

/** A message's data: the event's id, vault, type and time, and its type's fields (the API's schema). */
export type LiveEvent = StreamEvent;

/** Every event type the daemon stores: the dashboard listens for each (EventSource needs the names). */
const TYPES = VAULT_EVENT_TYPES;

export interface Live {
  subscribe(listener: (e: LiveEvent) => void): () => void;
  stop(): void;
  /** The status shown in the header: live, reconnecting, off. */
  state(): string;
}

export function openLive(onState: (state: string) => void, retryMs = 2_000): Live {
  const listeners = new Set<(e: LiveEvent) => void>();
  let lastId = 0;
  let source: EventSource | undefined;
  let timer: number | undefined;
  let state = "connecting";
  let stopped = false;
  const setState = (s: string) => {
    state = s;
    onState(s);
  };

  const open = () => {
    source = new EventSource(lastId > 0 ? `/api/events?lastEventId=${lastId}` : "/api/events");
    source.onopen = () => setState("live");
    source.onerror = () => {
      if (source?.readyState !== EventSource.CLOSED) return setState("reconnecting");
      setState("reconnecting");
      source.close();
      if (!stopped) timer = window.setTimeout(open, retryMs);
    };
    for (const type of TYPES) {
      source.addEventListener(type, (msg) => {
        const e = JSON.parse((msg as MessageEvent<string>).data) as LiveEvent;
        if (e.id <= lastId) return;
        lastId = e.id;
        for (const l of listeners) l(e);
      });
    }
  };
  open();
  return {
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    stop() {
      stopped = true;
      window.clearTimeout(timer);
      source?.close();
      setState("off");
    },
    state: () => state,
  };
}
