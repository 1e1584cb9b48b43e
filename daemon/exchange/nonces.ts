// Hyperliquid nonces: per signer, unique, and inside a time window around now. A millisecond clock
// bumped past the last value handed out keeps them strictly increasing even when many orders are
// signed in the same millisecond; the SDK serialises sending per signer, so they arrive in order.
export interface NonceSource {
  next(signer: string): number;
}

export function monotonicNonces(clock: () => number = Date.now): NonceSource {
  const last = new Map<string, number>();
  return {
    next(signer) {
      const key = signer.toLowerCase();
      const nonce = Math.max(clock(), (last.get(key) ?? 0) + 1);
      last.set(key, nonce);
      return nonce;
    },
  };
}
