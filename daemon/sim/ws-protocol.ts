// The messages a client may send on the sim's WebSocket (Hyperliquid's protocol): ping, subscribe,
// unsubscribe and post. Parsing only; what each one does is ws.ts's job.

export type Subscription = { type: string } & Record<string, unknown>;

/** A `post` request: an /info body or an /exchange body sent over the socket. */
export interface PostRequest {
  id: number;
  type: "info" | "action";
  payload: unknown;
}

export type Request =
  | { method: "ping" }
  | { method: "subscribe" | "unsubscribe"; subscription: Subscription }
  | ({ method: "post" } & PostRequest);

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function parsePost(msg: Record<string, unknown>): Request | undefined {
  const { id, request } = msg;
  if (typeof id !== "number" || !Number.isSafeInteger(id) || id < 0) return undefined;
  if (!isObject(request) || (request.type !== "info" && request.type !== "action")) return undefined;
  return { method: "post", id, type: request.type, payload: request.payload };
}

/** The request in `text`, or undefined when it is not one the venue would parse. */
export function parseRequest(text: string): Request | undefined {
  let msg: unknown;
  try {
    msg = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isObject(msg)) return undefined;
  if (msg.method === "ping") return { method: "ping" };
  if (msg.method === "post") return parsePost(msg);
  if (msg.method !== "subscribe" && msg.method !== "unsubscribe") return undefined;
  const sub = msg.subscription;
  if (!isObject(sub) || typeof sub.type !== "string") return undefined;
  return { method: msg.method, subscription: sub as Subscription };
}

/**
 * Same subscription whatever the key order, hex case or absent-versus-null optional fields: the venue
 * compares parsed values, and the SDK sends `nSigFigs: null` where CCXT leaves the key out.
 */
export function subscriptionKey(sub: Subscription): string {
  const entries = Object.entries(sub)
    .filter(([, v]) => v !== null && v !== undefined)
    .map(([k, v]) => [k, typeof v === "string" && /^0[xX][0-9a-fA-F]+$/.test(v) ? v.toLowerCase() : v] as const)
    .sort(([a], [b]) => (a < b ? -1 : 1));
  return JSON.stringify(Object.fromEntries(entries));
}
