// The one error type of the daemon. Every boundary (exchange, chain, database, validation)
// translates foreign errors into an AppError, and the HTTP layer renders it as
// { ok: false, error: { code, message, details? } } with `status`.

export const ERROR_STATUS = {
  INVALID_INPUT: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  VAULT_PAUSED: 409,
  VAULT_CLOSED: 409,
  VAULT_NOT_CLOSED: 409,
  NOT_RECOVERED: 409,
  DEAL_EXPIRED: 409,
  NOTHING_TO_WITHDRAW: 409,
  ESCROW_NOT_FUNDED: 409,
  ORDER_NOT_OPEN: 409,
  NO_POSITION: 409,
  AGENT_NOT_APPROVED: 409,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  /** The request line and headers past Node's limit: answered by the server, before any route. */
  HEADERS_TOO_LARGE: 431,
  UNSUPPORTED_MEDIA_TYPE: 415,
  INSUFFICIENT_BALANCE: 422,
  ORDER_REJECTED: 422,
  RATE_LIMITED: 429,
  INTERNAL: 500,
  EXCHANGE_UNAVAILABLE: 502,
  CHAIN_UNAVAILABLE: 502,
  BALANCE_STALE: 503,
  SERVICE_UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/**
 * What the refused caller can do next, in no client's words: the HTTP layer phrases each step for
 * whoever asked (a route, a CLI command, a dashboard button; http/next-steps.ts) and lists them in
 * `details.next` for frontends that render their own.
 */
export type NextStep =
  | { action: "closeVault"; vault: string }
  | { action: "unpauseVault"; vault: string }
  /** The investor funds the escrow with `amount` USDC (decimal text). */
  | { action: "fundVault"; vault: string; amount: string }
  | { action: "approveAgent" }
  | { action: "signIn" }
  | { action: "takeEventTicket" }
  /** Test USDC from the embedded sim's faucet (paper trading only). */
  | { action: "simFaucet" };

export interface AppErrorOptions {
  details?: unknown;
  /** What the caller can do next, first the likeliest. */
  next?: readonly NextStep[];
  /** Seconds a client should wait before retrying (sent as Retry-After). */
  retryAfter?: number;
  /** True when the same call may succeed if simply tried again (timeouts, 5xx, rate limits). */
  retryable?: boolean;
  cause?: unknown;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details?: unknown;
  readonly next: readonly NextStep[];
  readonly retryAfter?: number;
  readonly retryable: boolean;

  constructor(code: ErrorCode, message: string, options: AppErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "AppError";
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.details = options.details;
    this.next = options.next ?? [];
    this.retryAfter = options.retryAfter;
    this.retryable = options.retryable ?? false;
  }
}

export function isAppError(e: unknown): e is AppError {
  return e instanceof AppError;
}

/** `e` itself when it is an AppError, a database outage's (databaseError), else an INTERNAL one carrying it (its message, or `message`). */
export function asAppError(e: unknown, message?: string): AppError {
  if (e instanceof AppError) return e;
  return databaseError(e) ?? new AppError("INTERNAL", message ?? (e as Error)?.message ?? String(e), { cause: e });
}

// The database's failures that are no defect of the request: the server is unreachable, restarting
// or full, or it ended a statement or a session at one of its limits (postgres-pool.ts). Each is
// told by its code (a socket's errno, PostgreSQL's SQLSTATE, SQLite's result code); node-postgres
// gives its own connection losses no code, so those few are told by their fixed message.
const SOCKET_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "EHOSTUNREACH", "ENETUNREACH", "ENOTFOUND", "EAI_AGAIN", "ECONNABORTED"]);
const PG_LOST = /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Client was closed and is not queryable|Cannot use a pool after calling end)/;
/** Server-side states: shutdown (57P01-03), too many connections, an idle transaction ended (25P03). */
const PG_UNAVAILABLE = new Set(["57P01", "57P02", "57P03", "53300", "25P03"]);
/** A limit or a conflict that a moment later may not meet: lock and statement timeouts, serialization, deadlock. */
const PG_BUSY = new Set(["55P03", "57014", "40001", "40P01"]);

/** `e`, then what it wraps (`cause`, an AggregateError's errors), first to last. */
function* chain(e: unknown, depth = 0): Generator<unknown> {
  if (e === undefined || e === null || depth > 5) return;
  yield e;
  if (e instanceof AggregateError) for (const inner of e.errors) yield* chain(inner, depth + 1);
  if (typeof e === "object" && "cause" in e) yield* chain((e as { cause: unknown }).cause, depth + 1);
}

const codeOf = (e: unknown): string | undefined => {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
};

/** True when the connection to the database broke or could not be made (the server may have gone on without us). */
export function isConnectionLost(e: unknown): boolean {
  for (const x of chain(e)) {
    const code = codeOf(x);
    if (code && (SOCKET_CODES.has(code) || code.startsWith("08") || PG_UNAVAILABLE.has(code))) return true;
    if (x instanceof Error && PG_LOST.test(x.message)) return true;
  }
  return false;
}

/**
 * The database's failure as an AppError (503 SERVICE_UNAVAILABLE with Retry-After), or undefined
 * when `e` is not one of the database's temporary failures (a defect stays a defect).
 */
export function databaseError(e: unknown): AppError | undefined {
  if (e instanceof AppError) return e.code === "SERVICE_UNAVAILABLE" ? e : undefined;
  if (isConnectionLost(e)) return new AppError("SERVICE_UNAVAILABLE", "the database cannot be reached; retry shortly", { retryAfter: 2, cause: e });
  for (const x of chain(e)) {
    const code = codeOf(x);
    if (code && (PG_BUSY.has(code) || code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED"))) {
      return new AppError("SERVICE_UNAVAILABLE", "the database is busy; retry shortly", { retryAfter: 1, cause: e });
    }
  }
  return undefined;
}

/**
 * The connection went while COMMIT was on its way: the server may have committed or not. Never
 * retryable as is (withRetry would run the unit twice); a caller that must know reads it back.
 */
export function commitInDoubt(cause: unknown): AppError {
  return new AppError("SERVICE_UNAVAILABLE", "the database connection was lost during COMMIT: the write may or may not be stored", {
    retryAfter: 2, retryable: false, details: { inDoubt: true }, cause,
  });
}

/** True for commitInDoubt's error. */
export const isCommitInDoubt = (e: unknown): boolean =>
  e instanceof AppError && (e.details as { inDoubt?: unknown } | undefined)?.inDoubt === true;
