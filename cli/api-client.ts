// Talks to tradevaultd over HTTP. The CLI never opens the daemon's database.
import { Readable, type Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as WebReadable } from "node:stream/web";
import { CliError, EXIT } from "./errors.js";

export interface ApiClient {
  url: string;
  request<T = unknown>(method: "GET" | "POST" | "DELETE", path: string, body?: unknown, headers?: Record<string, string>): Promise<T>;
  /** GET `path` as CSV, written to `out` as it arrives; an answer that is not CSV is the daemon's error. */
  download(path: string, out: Writable, opts?: { end?: boolean }): Promise<void>;
}

/** Sent on every call: the daemon then names a refusal's next steps as commands, not routes. */
export const CLIENT_HEADERS = { "X-Tradevault-Client": "cli" } as const;

interface Envelope {
  ok?: boolean;
  data?: unknown;
  error?: { code?: string; message?: string; details?: unknown };
}

/** Why fetch failed, in the words of the system call (ECONNREFUSED, ENOTFOUND...). */
function unreachable(base: string, err: unknown): CliError {
  type Cause = { code?: string; errors?: Array<{ code?: string }> };
  const c = (err as { cause?: Cause }).cause;
  const cause = c?.code ?? c?.errors?.[0]?.code ?? (err as Error).message;
  return new CliError(
    "DAEMON_UNREACHABLE",
    `cannot reach tradevaultd at ${base} (${cause})`,
    EXIT.UNREACHABLE,
    "start it with `npm start` (or `npx tradevaultd`), or point --url / TRADEVAULT_URL at it",
  );
}

/** Throws exit 3 unless something answers HTTP at `url` (any status: it is there). */
export async function reach(url: string): Promise<void> {
  const base = url.replace(/\/+$/, "");
  try {
    const res = await fetch(`${base}/api/auth/session`, { headers: CLIENT_HEADERS, signal: AbortSignal.timeout(10_000) });
    await res.body?.cancel();
  } catch (err) {
    throw unreachable(base, err);
  }
}

/** The envelope's data, or the CliError its error (or a body that is no envelope) stands for. */
async function answer<T>(res: Response, where: string): Promise<T> {
  let payload: Envelope;
  try {
    payload = (await res.json()) as Envelope;
  } catch {
    throw new CliError("BAD_RESPONSE", `${where} answered ${res.status} with a body that is not JSON`, EXIT.FAILURE);
  }
  if (res.ok && payload.ok) return payload.data as T;
  const code = payload.error?.code ?? `HTTP_${res.status}`;
  const message = payload.error?.message ?? `HTTP ${res.status}`;
  if (res.status === 401) {
    // The daemon's message names the sign-in command itself when it lists the step.
    const told = Array.isArray((payload.error?.details as { next?: unknown } | undefined)?.next);
    throw new CliError(code, message, EXIT.NOT_SIGNED_IN, told ? undefined : "sign in with: npx tradevault login --wallet <name>", payload.error?.details);
  }
  const retry = res.headers.get("Retry-After");
  throw new CliError(code, message, EXIT.FAILURE, retry ? `retry in ${retry} s` : undefined, payload.error?.details);
}

export function createApiClient(url: string, token?: string): ApiClient {
  const base = url.replace(/\/+$/, "");
  return {
    url: base,
    async request<T>(method: string, path: string, body?: unknown, extraHeaders: Record<string, string> = {}): Promise<T> {
      let res: Response;
      try {
        res = await fetch(`${base}${path}`, {
          method,
          headers: {
            ...CLIENT_HEADERS,
            ...(body === undefined ? {} : { "Content-Type": "application/json" }),
            ...(token ? { Authorization: `Bearer ${token}` } : {}),
            ...extraHeaders,
          },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(60_000),
        });
      } catch (err) {
        throw unreachable(base, err);
      }
      return answer<T>(res, `${base}${path}`);
    },

    async download(path: string, out: Writable, opts: { end?: boolean } = {}): Promise<void> {
      let res: Response;
      try {
        // No timeout: an export of a long history takes as long as it takes; the daemon streams it.
        res = await fetch(`${base}${path}`, { headers: { ...CLIENT_HEADERS, Accept: "text/csv", ...(token ? { Authorization: `Bearer ${token}` } : {}) } });
      } catch (err) {
        throw unreachable(base, err);
      }
      if (!res.ok || !res.body || !(res.headers.get("content-type") ?? "").startsWith("text/csv")) {
        await answer(res, `${base}${path}`);
        throw new CliError("BAD_RESPONSE", `${base}${path} answered ${res.status} without CSV`, EXIT.FAILURE);
      }
      await pipeline(Readable.fromWeb(res.body as unknown as WebReadable), out, { end: opts.end ?? true });
    },
  };
}
