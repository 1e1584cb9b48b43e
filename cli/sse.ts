// A Server-Sent Events reader (the WHATWG event-stream format): the CLI's `events` command and the
// tests both read the daemon's stream with it.
export interface SseMessage {
  /** The `id:` field, when the message carries one. */
  id?: string;
  /** The `event:` field; "message" when absent. */
  event: string;
  /** The `data:` lines joined with "\n". */
  data: string;
}

interface Pending {
  id?: string;
  event?: string;
  data: string[];
}

/** Applies one line to the message being built; returns the finished message on a blank line. */
function feed(line: string, pending: Pending): SseMessage | undefined {
  if (line === "") {
    const done = pending.data.length > 0 ? { id: pending.id, event: pending.event ?? "message", data: pending.data.join("\n") } : undefined;
    pending.id = undefined;
    pending.event = undefined;
    pending.data = [];
    return done;
  }
  if (line.startsWith(":")) return undefined; // a comment: the daemon's keep-alive
  const colon = line.indexOf(":");
  const field = colon < 0 ? line : line.slice(0, colon);
  const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
  if (field === "data") pending.data.push(value);
  else if (field === "event") pending.event = value;
  else if (field === "id" && !value.includes("\0")) pending.id = value;
  return undefined;
}

/** Yields each message of a byte stream as it completes; chunks may split lines anywhere. */
export async function* readSse(body: AsyncIterable<Uint8Array>): AsyncGenerator<SseMessage> {
  const decoder = new TextDecoder();
  const pending: Pending = { data: [] };
  let buffer = "";
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    // A line ends at \r\n, \n or \r; a trailing \r may be half of a \r\n still on its way.
    const lines = buffer.split(/\r\n|\n|\r(?!$)/);
    buffer = lines.pop()!;
    for (const line of lines) {
      const message = feed(line, pending);
      if (message) yield message;
    }
  }
}
