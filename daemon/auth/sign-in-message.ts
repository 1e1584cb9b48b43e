// EIP-4361 (Sign-In with Ethereum) challenge messages, built with the maintained `siwe` package.
import { SiweMessage, generateNonce } from "siwe";

export interface SignInOrigin {
  /** The address users reach the daemon at (`--public-url`); domain and URI come from it. */
  publicUrl: string;
  chainId: number;
}

export interface Challenge {
  message: string;
  nonce: string;
  issuedAt: number;
  expiresAt: number;
}

export function buildChallenge(origin: SignInOrigin, address: string, now: number, ttlMs: number): Challenge {
  const url = new URL(origin.publicUrl);
  const nonce = generateNonce();
  const expiresAt = now + ttlMs;
  const message = new SiweMessage({
    scheme: url.protocol.replace(":", ""),
    domain: url.host,
    address,
    statement: "Sign in to tradevault. This request will not trigger a blockchain transaction or cost any gas.",
    uri: url.origin,
    version: "1",
    chainId: origin.chainId,
    nonce,
    issuedAt: new Date(now).toISOString(),
    expirationTime: new Date(expiresAt).toISOString(),
  }).prepareMessage();
  return { message, nonce, issuedAt: now, expiresAt };
}
