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

export async function openSse(url: string, token: string, lastEventId?: number): Promise<SseReader> {
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
  const reader: SseReader = { events: [], status: res.status, ended: Promise.resolve(), close: () => controller.abort() };
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
