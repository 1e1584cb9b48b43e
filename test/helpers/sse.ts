// Collects a daemon's Server-Sent Events for tests, with the CLI's own reader (cli/sse.ts), each
// checked against the documented event data (contract.ts).
import { readSse } from "../../cli/sse.js";
import { checkStreamEvent, violated } from "./contract.js";

export interface SseReader {
  events: Array<{ id: number; event: string; data: any }>;
  status: number;
  ended: Promise<void>;
  close(): void;
}

/** Opens a stream; its events are appended to `events` (a fresh array unless given) as they arrive. */
export async function openSse(url: string, token: string, lastEventId?: number, events: SseReader["events"] = []): Promise<SseReader> {
  const controller = new AbortController();
  const res = await fetch(url, {
    headers: { Authorization: `Bearer ${token}`, ...(lastEventId !== undefined ? { "Last-Event-ID": String(lastEventId) } : {}) },
    signal: controller.signal,
  });
  // A refused stream must fail the test here, not pass later as "no events" or "it ended".
  const type = res.headers.get("content-type") ?? "";
  if (res.status !== 200 || !type.startsWith("text/event-stream")) {
    controller.abort();
    throw new Error(`GET ${url}: ${res.status} ${type}, not an event stream`);
  }
  const reader: SseReader = { events, status: res.status, ended: Promise.resolve(), close: () => controller.abort() };
  if (!res.body) return reader;
  reader.ended = (async () => {
    try {
      for await (const m of readSse(res.body as unknown as AsyncIterable<Uint8Array>)) {
        const data = JSON.parse(m.data);
        // Each message keeps the contract; a violation fails the file at exit even if `ended` is never awaited.
        const problem = checkStreamEvent(m.event, data);
        if (problem) violated(problem);
        reader.events.push({ id: Number(m.id), event: m.event, data });
      }
    } catch (err) {
      if ((err as Error).name !== "AbortError") throw err;
    }
  })();
  return reader;
}

export interface FollowedStream {
  /** Every event received, across reconnects, in the order received. */
  events: Array<{ id: number; event: string; data: any }>;
  /** Streams that ended or broke and were opened again from the last id. */
  reconnects: number;
  /** Opens that failed (no answer, or not a stream). */
  failures: number;
  /** Resolves once the first stream is open. */
  opened: Promise<void>;
  /** Stops following; resolves once the last stream is closed. */
  close(): Promise<void>;
}

/**
 * Follows a daemon's event stream as EventSource does: a stream that ends or breaks (the daemon
 * closed it, restarted, or the connection dropped) is opened again with Last-Event-ID set to the last
 * id received, so the events are the stream's whole history with none skipped or repeated.
 * `url` is read at each open (a restarted daemon listens on a new port).
 */
export function followSse(url: () => string, token: string, from = 0): FollowedStream {
  const events: FollowedStream["events"] = [];
  let current: SseReader | undefined;
  let closing = false;
  let markOpened = () => undefined as void;
  const out: FollowedStream = { events, reconnects: 0, failures: 0, opened: new Promise((r) => (markOpened = r)), close: async () => undefined };
  const loop = (async () => {
    for (let opened = 0; !closing; opened++) {
      const last = events.length ? events[events.length - 1]!.id : from;
      try {
        current = await openSse(url(), token, last, events);
        if (opened > 0) out.reconnects++;
        markOpened();
        if (closing) current.close();
        await current.ended.catch(() => undefined);
      } catch {
        out.failures++;
      }
      if (!closing) await new Promise((r) => setTimeout(r, 200));
    }
  })();
  out.close = async () => {
    closing = true;
    markOpened();
    current?.close();
    await loop;
  };
  return out;
}
