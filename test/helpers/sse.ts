// A minimal Server-Sent Events reader for tests: collects events until stopped.
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
    const decoder = new TextDecoder();
    let buffer = "";
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let cut: number;
        while ((cut = buffer.indexOf("\n\n")) >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const field = (name: string) => block.split("\n").find((l) => l.startsWith(`${name}: `))?.slice(name.length + 2);
          const data = field("data");
          if (data) reader.events.push({ id: Number(field("id")), event: field("event") ?? "message", data: JSON.parse(data) });
        }
      }
    } catch (err) {
      if ((err as Error).name !== "AbortError") throw err;
    }
  })();
  return reader;
}
