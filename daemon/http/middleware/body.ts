// JSON bodies only, small. A body in any other media type is refused (415) rather than silently
// ignored; a POST that SPEC gives no body may come empty with no Content-Type. The text is read here
// with node's stream API (koa-body cost a sign-in about 7% of the daemon's CPU, bench login, for
// options this daemon never uses); parseJsonBody parses it, keeping each number's text.
import type { IncomingMessage } from "node:http";
import type { Readable } from "node:stream";
import { createBrotliDecompress, createUnzip } from "node:zlib";
import type { Middleware } from "koa";
import { AppError } from "../../errors.js";
import { parseJsonBody } from "../json-number.js";

export const BODY_LIMIT_BYTES = 16 * 1024;

declare module "koa" {
  interface Request {
    /** The parsed JSON body (JsonNumber leaves, json-number.ts); undefined when the request sent none. */
    body?: unknown;
  }
}

const NOT_JSON = "the request body is not valid JSON (an object is expected)";

const PARSED = new Set(["POST", "PUT", "PATCH", "DELETE"]);

const tooLarge = () => new AppError("PAYLOAD_TOO_LARGE", `the request body is larger than ${BODY_LIMIT_BYTES} bytes`);
const notJsonMedia = () => new AppError("UNSUPPORTED_MEDIA_TYPE", "send the body as application/json");
const notJson = (cause?: unknown) => new AppError("INVALID_INPUT", NOT_JSON, cause === undefined ? undefined : { cause });

/**
 * One middleware: a request whose method takes no body and that declares none (every GET a poller
 * sends) passes straight on; others are checked, read and parsed.
 */
export function jsonBody(): Middleware {
  return async (ctx, next) => {
    const declared = ctx.request.length;
    const carries = (declared !== undefined && declared > 0) || ctx.get("Transfer-Encoding") !== "";
    const parsed = PARSED.has(ctx.method);
    if (!parsed && !carries) return next();
    // `is` answers null for a request with neither Content-Length nor Transfer-Encoding: nothing to read.
    const json = ctx.is("application/json");
    if (carries && !json) throw notJsonMedia();
    if (parsed && json) {
      const text = await readText(ctx.req, declared);
      try {
        ctx.request.body = parseJsonBody(text);
      } catch (err) {
        throw notJson(err);
      }
    }
    return next();
  };
}

/** What a Content-Encoding needs to be read (as co-body did): identity, gzip, deflate or br. */
function decoded(req: IncomingMessage): Readable {
  const encoding = (req.headers["content-encoding"] ?? "identity").toLowerCase();
  if (encoding === "identity") return req;
  if (encoding === "gzip" || encoding === "deflate") return req.pipe(createUnzip());
  if (encoding === "br") return req.pipe(createBrotliDecompress());
  throw notJsonMedia();
}

/**
 * The body as UTF-8 text, at most BODY_LIMIT_BYTES of it (after decompression). A declared length
 * over the limit is refused before reading; a stream that ends early or breaks is not JSON.
 */
function readText(req: IncomingMessage, declared: number | undefined): Promise<string> {
  if (declared !== undefined && declared > BODY_LIMIT_BYTES) return Promise.reject(tooLarge());
  const stream = decoded(req);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = (err: AppError | undefined) => {
      stream.off("data", onData).off("end", onEnd).off("error", onError).off("close", onClose);
      if (stream !== req) req.unpipe();
      if (err) return reject(err);
      // A byte-order mark is not part of the JSON text (co-body's decoder dropped it too).
      const text = Buffer.concat(chunks, size).toString("utf8");
      resolve(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > BODY_LIMIT_BYTES) settle(tooLarge());
      else chunks.push(chunk);
    };
    const onEnd = () => settle(undefined);
    const onError = (err: unknown) => settle(notJson(err));
    // Closed before its end: the client went away mid-body.
    const onClose = () => settle(notJson());
    stream.on("data", onData).on("end", onEnd).on("error", onError).on("close", onClose);
  });
}
