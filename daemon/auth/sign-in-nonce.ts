// Challenge nonces that need no row: each one carries when it was issued and when it expires, and an
// HMAC under the daemons' shared sign-in key over those, the address and the site the message names.
// Login rebuilds the message from them, so a challenge costs no write and login no read; only the
// spent nonce is written, with the session (auth-service.ts).
//
// Layout, 64 lowercase hex digits (SIWE nonces are alphanumeric; the API takes up to 64): issued at
// (12, Unix ms), expires at (12), 8 random digits (two challenges in one millisecond differ), and
// the first 128 bits of HMAC-SHA256 (32).
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

export interface NonceFields {
  /** The origin the message names (scheme://host[:port]). */
  origin: string;
  chainId: number;
  address: string;
  issuedAt: number;
  expiresAt: number;
}

const SHAPE = /^[0-9a-f]{64}$/;
const TIME_DIGITS = 12;
const HEAD_DIGITS = 2 * TIME_DIGITS + 8;

const time = (ms: number): string => ms.toString(16).padStart(TIME_DIGITS, "0");

function mac(key: Buffer, head: string, f: Pick<NonceFields, "origin" | "chainId" | "address">): Buffer {
  return createHmac("sha256", key).update(`tradevault sign-in v1\n${f.origin}\n${f.chainId}\n${f.address}\n${head}`).digest().subarray(0, 16);
}

export function mintNonce(key: Buffer, f: NonceFields): string {
  const head = `${time(f.issuedAt)}${time(f.expiresAt)}${randomBytes(4).toString("hex")}`;
  return head + mac(key, head, f).toString("hex");
}

/**
 * The fields a nonce was minted with, when it was minted under `key` for `address` and one of
 * `origins` (the origins allowed now: a message naming one no longer allowed signs nobody in);
 * undefined otherwise. Expiry is the caller's to judge.
 */
export function openNonce(
  key: Buffer,
  nonce: string,
  claimed: { address: string; chainId: number; origins: Iterable<string> },
): NonceFields | undefined {
  if (!SHAPE.test(nonce)) return undefined;
  const head = nonce.slice(0, HEAD_DIGITS);
  const tag = Buffer.from(nonce.slice(HEAD_DIGITS), "hex");
  for (const origin of claimed.origins) {
    if (!timingSafeEqual(tag, mac(key, head, { origin, chainId: claimed.chainId, address: claimed.address }))) continue;
    return {
      origin,
      chainId: claimed.chainId,
      address: claimed.address,
      issuedAt: parseInt(head.slice(0, TIME_DIGITS), 16),
      expiresAt: parseInt(head.slice(TIME_DIGITS, 2 * TIME_DIGITS), 16),
    };
  }
  return undefined;
}
