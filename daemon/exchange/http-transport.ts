// The SDK's request transport on node:http(s) with a keep-alive agent. The SDK's own HttpTransport
// goes through fetch, clones every response (a tee of its body) and builds Headers and a timeout
// signal per call: about 0.5 ms of CPU per request more than this, on the order path's critical
// path (bench order-path). Failures are the SDK's own error types, so translate-error.ts reads
// them as before.
import { HttpRequestError, type IRequestTransport } from "@nktkas/hyperliquid";
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { brotliDecompressSync, gunzipSync, inflateSync } from "node:zlib";

export interface TransportOptions {
  /** Base URL without a path; the endpoint ("info", "exchange") is appended. */
  url: string;
  isTestnet: boolean;
  /** Whole-request timeout, ms. */
  timeoutMs: number;
}

function decode(res: IncomingMessage, raw: Buffer): string {
  switch (res.headers["content-encoding"]) {
    case "gzip":
      return gunzipSync(raw).toString("utf8");
    case "deflate":
      return inflateSync(raw).toString("utf8");
    case "br":
      return brotliDecompressSync(raw).toString("utf8");
    default:
      return raw.toString("utf8");
  }
}

/** The failure as the SDK reports it: an HttpRequestError carrying a Response with the status. */
function refused(res: IncomingMessage, text: string, message?: string): HttpRequestError {
  const response = new Response(text, { status: res.statusCode ?? 500, statusText: res.statusMessage ?? "" });
  return new HttpRequestError({ response, message: message ?? text });
}

export function nodeHttpTransport(opts: TransportOptions): IRequestTransport {
  const base = new URL(opts.url);
  const secure = base.protocol === "https:";
  const agent = secure ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
  const send = secure ? httpsRequest : httpRequest;
  const prefix = base.pathname.replace(/\/$/, "");

  function post<T>(endpoint: string, body: string, signal: AbortSignal | undefined): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const req = send({
        agent, protocol: base.protocol, host: base.hostname, port: base.port || undefined, path: `${prefix}/${endpoint}`, method: "POST", signal,
        headers: { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body), "Accept-Encoding": "gzip, deflate, br" },
      }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("error", (err) => reject(new HttpRequestError(undefined, { cause: err })));
        res.on("end", () => {
          try {
            const text = decode(res, Buffer.concat(chunks));
            const status = res.statusCode ?? 0;
            if (status < 200 || status >= 300 || !String(res.headers["content-type"]).includes("application/json")) throw refused(res, text);
            const json = JSON.parse(text) as { type?: string; message?: string };
            if (json?.type === "error") throw refused(res, text, json.message);
            resolve(json as T);
          } catch (err) {
            reject(err instanceof HttpRequestError ? err : new HttpRequestError(undefined, { cause: err }));
          }
        });
      });
      // Never sent again here: a connection dropped after the exchange read an order leaves its outcome
      // in doubt, which the trading service settles by cloid. Idle sockets are retired before the
      // server's announced keep-alive timeout (Node's agent reads the hint), as fetch's are.
      req.on("error", (err) => reject(new HttpRequestError(undefined, { cause: err })));
      req.end(body);
    });
  }

  return {
    isTestnet: opts.isTestnet,
    request<T>(endpoint: "info" | "exchange" | "explorer", payload: unknown, signal?: AbortSignal): Promise<T> {
      const timeout = AbortSignal.timeout(opts.timeoutMs);
      return post<T>(endpoint, JSON.stringify(payload), signal ? AbortSignal.any([signal, timeout]) : timeout);
    },
  };
}
