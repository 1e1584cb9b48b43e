// Hyperliquid's nonce rule, per signer (the agent's own address when an agent signs): the nonce must
// lie inside (now - 2 days, now + 1 day), must never have been used, and must exceed the smallest of
// the `keep` highest nonces kept for that signer. Until a signer has used `keep` nonces its set has
// free slots, so any unused nonce inside the window is accepted (concurrent requests may arrive
// slightly out of order).

export interface NoncePolicy {
  /** How many of a signer's highest nonces are kept (Hyperliquid: 100). */
  keep: number;
  /** A nonce must be greater than now - maxAgeMs. */
  maxAgeMs: number;
  /** A nonce must be less than now + maxAheadMs. */
  maxAheadMs: number;
}

const DAY = 24 * 60 * 60 * 1000;
export const DEFAULT_NONCE_POLICY: NoncePolicy = { keep: 100, maxAgeMs: 2 * DAY, maxAheadMs: DAY };

/** Error text for a nonce the signer may not use, or undefined when it is acceptable. */
export function nonceError(kept: readonly number[], nonce: number, now: number, policy: NoncePolicy): string | undefined {
  const oldest = now - policy.maxAgeMs;
  const newest = now + policy.maxAheadMs;
  if (nonce <= oldest) return `Invalid nonce: nonce too low ${nonce} < ${oldest}`;
  if (nonce >= newest) return `Invalid nonce: nonce too high ${nonce} > ${newest}`;
  if (kept.includes(nonce)) return `Invalid nonce: duplicate nonce ${nonce}`;
  if (kept.length >= policy.keep) {
    const smallest = Math.min(...kept);
    if (nonce < smallest) return `Invalid nonce: nonce too low ${nonce} < ${smallest}`;
  }
  return undefined;
}
