// What the server answers for a request Node's HTTP parser refuses before any route sees it (headers
// past its 16 KiB limit, a line that is not HTTP): the error envelope, as every other answer, where
// Node would send a bare status line. A request that timed out or a connection already gone is left
// as Node leaves it.
import { randomUUID } from "node:crypto";
import type { Duplex } from "node:stream";
import { AppError } from "../errors.js";

function refusal(code: string | undefined): AppError | undefined {
  if (code === "HPE_HEADER_OVERFLOW") return new AppError("HEADERS_TOO_LARGE", "the request line and headers are larger than 16 KiB");
  if (code?.startsWith("HPE_")) return new AppError("INVALID_INPUT", "the request is not valid HTTP/1.1");
  return undefined;
}

const REASONS: Record<number, string> = { 400: "Bad Request", 431: "Request Header Fields Too Large" };

/** The server's `clientError` listener. */
export function answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  const refused = refusal(err.code);
  // Node's own check: a response already under way on this socket is not interrupted by another.
  const busy = Boolean((socket as { _httpMessage?: unknown })._httpMessage);
  if (!refused || !socket.writable || busy) {
    if (err.code === "ERR_HTTP_REQUEST_TIMEOUT" && socket.writable && !busy) socket.end("HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n");
    else socket.destroy();
    return;
  }
  const body = JSON.stringify({ ok: false, error: { code: refused.code, message: refused.message } });
  socket.end([
    `HTTP/1.1 ${refused.status} ${REASONS[refused.status]}`, "Connection: close", "Content-Type: application/json; charset=utf-8",
    `Content-Length: ${Buffer.byteLength(body)}`, `X-Request-Id: ${randomUUID()}`, "", body,
  ].join("\r\n"));
}
