// JSON bodies only, small. A body in any other media type is refused (415) rather than silently
// ignored; a POST that SPEC gives no body may come empty with no Content-Type. koa-body only reads the
// text (limit, charset, content encoding); parseJsonBody parses it, keeping each number's text.
import type { Middleware } from "koa";
import { HttpMethodEnum, koaBody } from "koa-body";
import { AppError } from "../../errors.js";
import { parseJsonBody } from "../json-number.js";

export const BODY_LIMIT_BYTES = 16 * 1024;

const NOT_JSON = "the request body is not valid JSON (an object is expected)";

/**
 * Reads and parses the body of a POST, PUT, PATCH or DELETE; any method's body that is not JSON is
 * refused. A request that declares no body (every GET a poller sends) passes with none.
 */
export function jsonBody(): Middleware {
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
      if ((err as { type?: string }).type === "request.aborted") throw new AppError("INVALID_INPUT", "the request ended before its body", { cause: err });
      throw new AppError("INVALID_INPUT", NOT_JSON, { cause: err });
    },
  });
  return async (ctx, next) => {
    const declared = ctx.request.length;
    const hasBody = (declared !== undefined && declared > 0) || ctx.get("Transfer-Encoding") !== "";
    if (hasBody && !ctx.is("application/json")) throw new AppError("UNSUPPORTED_MEDIA_TYPE", "send the body as application/json");
    await read(ctx, async () => undefined);
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
}
