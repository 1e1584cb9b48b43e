// EIP-4361 (Sign-In with Ethereum) challenge messages, built with the maintained `siwe` package.
//
// siwe's constructor validates a message by laying it out and parsing the text back with its ABNF
// parser, which cost a sign-in about 7% of the daemon's CPU (bench login). What it validates is the
// origin (domain, URI, chain id, statement), which is the same for every challenge; the parts that
// change (the address, EIP-55 already at the route; siwe's own nonce; ISO times) cannot make the text
// invalid. So each origin's message is constructed, and validated, once, and each challenge is a copy
// of it with its own address, nonce and times, laid out by siwe's `prepareMessage`. Login lays the
// text out again the same way and never parses it.
import { SiweMessage, generateNonce } from "siwe";

export interface SignInOrigin {
  /** The address users reach the daemon at (`--public-url`); domain and URI come from it. */
  publicUrl: string;
  chainId: number;
}

/** What makes one challenge's text: its nonce (sign-in-nonce.ts) says the rest. */
export interface ChallengeFields {
  address: string;
  nonce: string;
  issuedAt: number;
  expiresAt: number;
}

const STATEMENT = "Sign in to tradevault. This request will not trigger a blockchain transaction or cost any gas.";

const templates = new Map<string, SiweMessage>();

function templateFor(origin: SignInOrigin): SiweMessage {
  const key = `${origin.publicUrl} ${origin.chainId}`;
  let template = templates.get(key);
  if (!template) {
    const url = new URL(origin.publicUrl);
    template = new SiweMessage({
      scheme: url.protocol.replace(":", ""),
      domain: url.host,
      address: "0x0000000000000000000000000000000000000000",
      statement: STATEMENT,
      uri: url.origin,
      version: "1",
      chainId: origin.chainId,
      nonce: generateNonce(),
      issuedAt: new Date(0).toISOString(),
      expirationTime: new Date(0).toISOString(),
    });
    templates.set(key, template);
  }
  return template;
}

/**
 * The EIP-4361 text of a challenge. A function of its inputs alone: login rebuilds the text the
 * wallet signed from the nonce's fields instead of storing or parsing it.
 */
export function challengeMessage(origin: SignInOrigin, c: ChallengeFields): string {
  // A copy without the constructor (which would re-parse); its fields are plain own properties.
  const message: SiweMessage = Object.assign(Object.create(SiweMessage.prototype) as SiweMessage, templateFor(origin), {
    address: c.address,
    nonce: c.nonce,
    issuedAt: new Date(c.issuedAt).toISOString(),
    expirationTime: new Date(c.expiresAt).toISOString(),
  });
  return message.prepareMessage();
}
