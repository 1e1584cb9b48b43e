// Retries for calls whose failure may be temporary. What is worth retrying is the error's own say
// (AppError.retryable: timeouts, 5xx, rate limits, a dropped connection); anything else fails at once.
import { isAppError } from "../errors.js";
import { backoffMs } from "./backoff.js";

export interface RetryPolicy {
  /** Tries in all, the first included. */
  attempts: number;
  /** Wait before the second try; doubled before each later one. */
  baseDelayMs: number;
  /** Called before each retry, with the error that caused it. */
  onRetry?(error: unknown, attempt: number): void;
}

export const isRetryable = (e: unknown): boolean => isAppError(e) && e.retryable;

export async function withRetry<T>(fn: () => Promise<T>, policy: RetryPolicy): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (e) {
      if (attempt >= policy.attempts || !isRetryable(e)) throw e;
      policy.onRetry?.(e, attempt);
      await new Promise((r) => setTimeout(r, backoffMs(attempt, policy.baseDelayMs, Infinity)));
    }
  }
}
