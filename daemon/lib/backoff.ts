// The one backoff every retry loop uses: the first retry waits `firstMs`, each later one twice as
// long as the one before, never more than `maxMs`.

/** The wait before retry number `retry` (1 for the first). */
export function backoffMs(retry: number, firstMs: number, maxMs: number): number {
  return Math.min(maxMs, firstMs * 2 ** Math.min(Math.max(0, retry - 1), 30));
}
