// The one way the daemon POSTs to a URL someone else gave it (a user's webhook, the operator's
// alert target). The host is resolved here, every address it resolves to is checked against
// address-rules.ts, and the socket connects to the address that was checked (the `lookup` option
// answers with it), so a DNS answer that changes between check and connect (rebinding) cannot
// reach a refused address. No redirect is followed: a 3xx is reported as a failure, since its
// Location is exactly how a public URL would point the daemon at a private one. Time, request body
// and the part of the reply read are capped. A network failure is an answer, never a throw.
import { lookup as dnsLookup } from "node:dns/promises";
import http from "node:http";
import https from "node:https";
import { isIP, type LookupFunction } from "node:net";
import { AppError } from "../errors.js";
import { refusalOf } from "./address-rules.js";
import type { RenderedMessage } from "./formats.js";

export const OUTBOUND_TIMEOUT_MS = 10_000;
export const MAX_REQUEST_BYTES = 64 * 1024;
export const MAX_REPLY_BYTES = 4 * 1024;
const REGISTRATION_LOOKUP_MS = 5_000;
const EXCERPT_CHARS = 500;

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Name resolution, replaceable so a test can play a DNS answer that points somewhere else. */
export type Resolver = (host: string) => Promise<ResolvedAddress[]>;

export interface OutboundOptions {
  /** --webhooks-allow-private: loopback and LAN addresses may be reached (tests, self-hosters on a LAN). */
  allowPrivate: boolean;
  timeoutMs?: number;
  resolve?: Resolver;
}

export interface OutboundResult {
  /** The HTTP status the endpoint answered; absent when it answered nothing. */
  status?: number;
  latencyMs: number;
  /** Why this was not a 2xx: a network failure, a refused address, a redirect, or the status. */
  error?: string;
  /** The start of the reply's body, as text. */
  replyExcerpt?: string;
}

const systemResolver: Resolver = (host) => dnsLookup(host, { all: true, verbatim: true });

/** The host of `url` as an address or a name (URL keeps IPv6 literals in brackets). */
function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, "$1");
}

/** The address to connect to, after checking every address the host resolves to; throws the reason. */
async function destination(url: URL, opts: OutboundOptions): Promise<ResolvedAddress> {
  const host = hostOf(url);
  const family = isIP(host);
  const addresses = family ? [{ address: host, family }] : await (opts.resolve ?? systemResolver)(host);
  if (addresses.length === 0) throw new Error(`${host} resolves to no address`);
  if (!opts.allowPrivate) {
    for (const a of addresses) {
      const why = refusalOf(a.address);
      if (why) throw new RefusedAddress(`${host} resolves to ${a.address}, a ${why} address, which webhooks may not reach`);
    }
  }
  return addresses[0]!;
}

class RefusedAddress extends Error {}

/**
 * Checks a URL when it is registered: INVALID_INPUT (naming `field`) if its host resolves to a
 * refused address or to nothing. Checked again at each send, on the address connected to.
 */
export async function checkDestination(url: URL, opts: OutboundOptions, field = "url"): Promise<void> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), opts.timeoutMs ?? REGISTRATION_LOOKUP_MS);
  try {
    // A resolver that never answers must not hold the registration request open.
    await Promise.race([destination(url, opts), aborted(abort.signal)]);
  } catch (e) {
    const message = e instanceof RefusedAddress ? e.message : `${hostOf(url)} cannot be resolved`;
    throw new AppError("INVALID_INPUT", `${field}: ${message}`, { details: [{ field, message }] });
  } finally {
    clearTimeout(timer);
  }
}

/** POSTs `msg` to `url` and reports what happened; resolves even when the endpoint is unreachable. */
export async function postOutbound(url: URL, msg: RenderedMessage, opts: OutboundOptions): Promise<OutboundResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const bytes = Buffer.from(msg.body, "utf8");
  if (bytes.length > MAX_REQUEST_BYTES) return { latencyMs: 0, error: `body of ${bytes.length} bytes is over the ${MAX_REQUEST_BYTES}-byte cap` };
  const timeoutMs = opts.timeoutMs ?? OUTBOUND_TIMEOUT_MS;
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), timeoutMs);
  try {
    const target = await Promise.race([destination(url, opts), aborted(abort.signal)]);
    const reply = await send(url, target, msg.headers, bytes, abort.signal);
    return { ...reply, latencyMs: elapsed() };
  } catch (e) {
    const error = abort.signal.aborted ? `no complete answer within ${timeoutMs / 1000} s` : describeFailure(e);
    return { latencyMs: elapsed(), error };
  } finally {
    clearTimeout(timer);
  }
}

function aborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => signal.addEventListener("abort", () => reject(new Error("aborted")), { once: true }));
}

function describeFailure(e: unknown): string {
  const err = e as NodeJS.ErrnoException;
  if (e instanceof RefusedAddress) return err.message;
  return err.code && !err.message.includes(err.code) ? `${err.code}: ${err.message}` : (err.message ?? String(e));
}

type Reply = Omit<OutboundResult, "latencyMs">;

function send(url: URL, target: ResolvedAddress, headers: Record<string, string>, body: Buffer, signal: AbortSignal): Promise<Reply> {
  // Whatever the host name resolves to now, the socket goes to the address checked above.
  const lookup: LookupFunction = (_host, options, callback) => {
    if (options.all) (callback as (e: null, a: ResolvedAddress[]) => void)(null, [target]);
    else callback(null, target.address, target.family);
  };
  const request = url.protocol === "https:" ? https.request : http.request;
  return new Promise<Reply>((resolve, reject) => {
    const req = request(url, {
      method: "POST",
      agent: false,
      lookup,
      signal,
      headers: { ...headers, "content-length": String(body.length), "user-agent": "tradevault-webhooks" },
    }, (res) => {
      const status = res.statusCode ?? 0;
      const chunks: Buffer[] = [];
      let size = 0;
      const finish = () => {
        const replyExcerpt = Buffer.concat(chunks).subarray(0, MAX_REPLY_BYTES).toString("utf8").slice(0, EXCERPT_CHARS);
        resolve({ status, replyExcerpt, error: failureOfStatus(status, res.headers.location) });
        res.destroy();
      };
      res.on("data", (chunk: Buffer) => {
        chunks.push(chunk);
        size += chunk.length;
        if (size >= MAX_REPLY_BYTES) finish(); // read no more of a long reply
      });
      res.on("end", finish);
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}

function failureOfStatus(status: number, location: string | undefined): string | undefined {
  if (status >= 200 && status < 300) return undefined;
  if (status >= 300 && status < 400) return `answered ${status}, a redirect${location ? ` to ${location}` : ""}, which is not followed`;
  return `answered ${status}`;
}
