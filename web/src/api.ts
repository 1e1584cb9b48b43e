// The daemon's API on this origin: the session cookie (HttpOnly, SameSite=Strict) travels by
// itself, so the page never holds the session token. Every failure becomes an ApiError carrying the
// envelope's code and message, which the page shows as is. Every call says it comes from the
// dashboard, so the daemon words its refusals for someone at this page rather than at a terminal.
export class ApiError extends Error {
  constructor(readonly code: string, message: string, readonly status: number, readonly details?: unknown) {
    super(message);
  }
}

interface Envelope<T> {
  ok: boolean;
  data?: T;
  error?: { code: string; message: string; details?: unknown };
}

/** The daemon reads it to phrase refusals (buttons to press rather than routes to call). */
const CLIENT = { "X-Tradevault-Client": "dashboard" };

export async function api<T = any>(method: "GET" | "POST" | "DELETE", path: string, body?: unknown): Promise<T> {
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      credentials: "same-origin",
      headers: body === undefined ? CLIENT : { ...CLIENT, "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (e) {
    throw new ApiError("NETWORK", `the daemon cannot be reached (${(e as Error).message})`, 0);
  }
  const text = await res.text();
  let env: Envelope<T> | undefined;
  try {
    env = JSON.parse(text) as Envelope<T>;
  } catch {
    throw new ApiError("BAD_RESPONSE", `HTTP ${res.status}: ${text.slice(0, 200) || "empty answer"}`, res.status);
  }
  if (!res.ok || !env.ok) {
    const e = env.error ?? { code: "HTTP_" + res.status, message: `HTTP ${res.status}` };
    throw new ApiError(e.code, e.message, res.status, e.details);
  }
  return (env.data ?? env) as T;
}

export const get = <T = any>(path: string) => api<T>("GET", path);
export const post = <T = any>(path: string, body?: unknown) => api<T>("POST", path, body ?? {});
export const del = <T = any>(path: string) => api<T>("DELETE", path);
