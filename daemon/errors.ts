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

export interface AppErrorOptions {
  details?: unknown;
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
  readonly retryAfter?: number;
  readonly retryable: boolean;

  constructor(code: ErrorCode, message: string, options: AppErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "AppError";
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.details = options.details;
    this.retryAfter = options.retryAfter;
    this.retryable = options.retryable ?? false;
  }
}

export function isAppError(e: unknown): e is AppError {
  return e instanceof AppError;
}

/** `e` itself when it is an AppError, else an INTERNAL one carrying it (its message, or `message`). */
export function asAppError(e: unknown, message?: string): AppError {
  if (e instanceof AppError) return e;
  return new AppError("INTERNAL", message ?? (e as Error)?.message ?? String(e), { cause: e });
}
