// JSON bodies only, small. A body in any other media type is refused (415) rather than silently
// ignored; a POST that SPEC gives no body may come empty with no Content-Type. koa-body only reads the
// text (limit, charset, content encoding); parseJsonBody parses it, keeping each number's text. What
// nearly every client sends (UTF-8 JSON, uncompressed, its length declared and within the limit) is
// read straight from the request stream instead: koa-body's layers (co-body, raw-body, the charset
// decoder) cost more CPU than the rest of a small POST's handling (bench/RESULTS.md, "Findings").
import type { IncomingMessage } from "node:http";
import type { Context, Middleware } from "koa";
import { HttpMethodEnum, koaBody } from "koa-body";
import { AppError } from "../../errors.js";
import { parseJsonBody } from "../json-number.js";

export const BODY_LIMIT_BYTES = 16 * 1024;

const NOT_JSON = "the request body is not valid JSON (an object is expected)";
const CUT_SHORT = "the request ended before its body";

const PARSED = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** What `ctx.is("application/json")` takes; the text is read as UTF-8 whatever the charset, as koa-body reads it. */
const PLAIN_JSON = /^application\/json[ \t]*(?:;|$)/i;

/** Whether a body of `declared` length can take the direct read (else koa-body's). */
function isPlain(ctx: Context, declared: number | undefined): declared is number {
  const h = ctx.req.headers;
  if (declared === undefined || declared > BODY_LIMIT_BYTES || h["transfer-encoding"] !== undefined) return false;
  if (h["content-encoding"] !== undefined && h["content-encoding"].toLowerCase() !== "identity") return false;
  return h["content-type"] !== undefined && PLAIN_JSON.test(h["content-type"]);
}

/** A declared-length body as text, without its byte-order mark (as koa-body's decoder drops it). */
function readPlain(req: IncomingMessage, length: number): Promise<string> {
  // A client gone before this point has already emitted its close: no listener would hear it.
  if (req.readableAborted) return Promise.reject(new AppError("INVALID_INPUT", CUT_SHORT));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const settle = (err: unknown, text?: string) => {
      req.off("data", onData).off("end", onEnd).off("error", onError).off("close", onClose);
      if (err) reject(err);
      else resolve(text!.charCodeAt(0) === 0xfeff ? text!.slice(1) : text!);
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      chunks.push(chunk);
    };
    const onEnd = () => received === length
      ? settle(undefined, (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).toString("utf8"))
      : settle(new AppError("INVALID_INPUT", "the request body is shorter than its Content-Length"));
    const onClose = () => settle(new AppError("INVALID_INPUT", CUT_SHORT));
    // The stream's errors are the client's (an aborted upload: ECONNRESET "aborted").
    const onError = (err: unknown) => settle(new AppError("INVALID_INPUT", CUT_SHORT, { cause: err }));
    req.on("data", onData).on("end", onEnd).on("error", onError).on("close", onClose);
  });
}

/**
 * One middleware: a request whose method takes no body and that declares none (every GET a poller
 * sends) passes straight on; others are checked, read and parsed.
 */
export function jsonBody(): Middleware {
  const hasBody: Middleware = async (ctx, next) => {
    const declared = ctx.request.length;
    const chunked = ctx.get("Transfer-Encoding") !== "";
    if ((declared !== undefined && declared > 0) || chunked) {
      if (!ctx.is("application/json")) {
        throw new AppError("UNSUPPORTED_MEDIA_TYPE", "send the body as application/json");
      }
    }
    await next();
  };
  const read = koaBody({
    json: false,
    text: true,
    textTypes: ["application/json"],
    textLimit: BODY_LIMIT_BYTES,
    multipart: false,
    urlencoded: false,
    parsedMethods: [HttpMethodEnum.POST, HttpMethodEnum.PUT, HttpMethodEnum.PATCH, HttpMethodEnum.DELETE],
    // Translate the reader's errors (raw-body / co-body, told apart by HTTP status) at this boundary.
    onError: (err) => {
      const status = (err as { status?: number }).status;
      if (status === 413) throw new AppError("PAYLOAD_TOO_LARGE", `the request body is larger than ${BODY_LIMIT_BYTES} bytes`);
      if (status === 415) throw new AppError("UNSUPPORTED_MEDIA_TYPE", "send the body as application/json");
      if ((err as { type?: string }).type === "request.aborted") throw new AppError("INVALID_INPUT", CUT_SHORT, { cause: err });
      throw new AppError("INVALID_INPUT", NOT_JSON, { cause: err });
    },
  });
  const parse: Middleware = async (ctx, next) => {
    const text: unknown = ctx.request.body;
    if (typeof text === "string") {
      try {
        ctx.request.body = parseJsonBody(text) as typeof ctx.request.body; // JsonNumber leaves included
      } catch (err) {
        throw new AppError("INVALID_INPUT", NOT_JSON, { cause: err });
      }
    }
    await next();
  };
  return async (ctx, next) => {
    const declared = ctx.request.length;
    if (!PARSED.has(ctx.method)) {
      if (!(declared !== undefined && declared > 0) && ctx.get("Transfer-Encoding") === "") return next();
      return hasBody(ctx, () => read(ctx, next));
    }
    if (!isPlain(ctx, declared)) return hasBody(ctx, () => read(ctx, () => parse(ctx, next)));
    ctx.request.body = (await readPlain(ctx.req, declared)) as typeof ctx.request.body;
    return parse(ctx, next);
  };
}
