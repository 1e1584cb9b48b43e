// EIP-4361 (Sign-In with Ethereum) challenge messages.
//
// `new SiweMessage({...})` re-parses its own text with an ABNF parser to validate it, which cost a
// sign-in about 7% of the daemon's CPU (bench login). Only the address, nonce and times change
// between challenges, and none of them can make the text invalid, so the message is laid out here and
// checked against the maintained `siwe` package once per origin: the first challenge for an origin is
// also built by siwe, and the two texts must be identical.
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

const STATEMENT = "Sign in to tradevault. This request will not trigger a blockchain transaction or cost any gas.";

interface Fields {
  scheme: string;
  domain: string;
  address: string;
  uri: string;
  chainId: number;
  nonce: string;
  issuedAt: string;
  expirationTime: string;
}

function layout(f: Fields): string {
  return (
    `${f.scheme}://${f.domain} wants you to sign in with your Ethereum account:\n${f.address}\n\n` +
    `${STATEMENT}\n\n` +
    `URI: ${f.uri}\nVersion: 1\nChain ID: ${f.chainId}\nNonce: ${f.nonce}\n` +
    `Issued At: ${f.issuedAt}\nExpiration Time: ${f.expirationTime}`
  );
}

const checkedOrigins = new Set<string>();

export function buildChallenge(origin: SignInOrigin, address: string, now: number, ttlMs: number): Challenge {
  const url = new URL(origin.publicUrl);
  const expiresAt = now + ttlMs;
  const fields: Fields = {
    scheme: url.protocol.replace(":", ""),
    domain: url.host,
    address,
    uri: url.origin,
    chainId: origin.chainId,
    nonce: generateNonce(),
    issuedAt: new Date(now).toISOString(),
    expirationTime: new Date(expiresAt).toISOString(),
  };
  const message = layout(fields);
  const key = `${origin.publicUrl} ${origin.chainId}`;
  if (!checkedOrigins.has(key)) {
    // Throws if siwe finds the origin invalid; differs only if siwe's layout changed.
    const reference = new SiweMessage({ ...fields, statement: STATEMENT, version: "1" }).prepareMessage();
    if (reference !== message) throw new Error("the sign-in message layout no longer matches the siwe package");
    checkedOrigins.add(key);
  }
  return { message, nonce: fields.nonce, issuedAt: now, expiresAt };
}
