// Sends one fuzz request and says what is wrong with its answer: a 5xx, a dropped connection, a body
// outside the envelope where the document promises one, an error whose status is not its code's, an
// error-level log line. What is not enveloped is read from the document: a media type other than
// JSON listed for that status (the event stream, CSV), or a JSON schema without `ok` (the document).
import { connect } from "node:net";
import { ERROR_STATUS, type ErrorCode } from "../../../daemon/errors.js";
import type { World } from "./fuzz-world.js";
import type { FuzzRequest } from "./fuzz-requests.js";

export interface Answer {
  status: number;
  type: string;
  text: string;
}

export interface Finding {
  request: FuzzRequest;
  problem: string;
  answer?: Answer;
}

function credentials(w: World, r: FuzzRequest): Record<string, string> {
  switch (r.caller) {
    case "ivy": case "tom": return { Authorization: `Bearer ${w.users[r.caller].token}` };
    case "none": return {};
    case "bad-bearer": return { Authorization: `Bearer ${"A".repeat(43)}` };
    case "bad-cookie": return { Cookie: "session=%zz%00; session=" };
    case "odd-authorization": return { Authorization: "Basic dXNlcjpwYXNz" };
  }
}

function bodyOf(r: FuzzRequest): { body?: BodyInit; duplex?: "half" } {
  if (r.body === undefined) return {};
  if (!r.chunked) return { body: typeof r.body === "string" ? r.body : Buffer.from(r.body) };
  const bytes = typeof r.body === "string" ? new TextEncoder().encode(r.body) : r.body;
  const stream = new ReadableStream({
    start(c) {
      for (let i = 0; i < bytes.length; i += 4096) c.enqueue(bytes.slice(i, i + 4096));
      c.close();
    },
  });
  return { body: stream, duplex: "half" };
}

/** Writes `text` to a new connection and reads the answer until the server closes it. */
function sendWire(w: World, text: string): Promise<Answer> {
  const { hostname, port } = new URL(w.d.url);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(Number(port), hostname, () => socket.end(text));
    socket.on("data", (c: Buffer) => chunks.push(c)).on("error", reject).on("close", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      const [head = "", ...rest] = raw.split("\r\n\r\n");
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0);
      const type = /\r\ncontent-type: *([^\r]*)/i.exec(head)?.[1] ?? "";
      if (!status) reject(new Error(`no HTTP answer: ${JSON.stringify(raw.slice(0, 200))}`));
      else resolve({ status, type, text: rest.join("\r\n\r\n") });
    });
  });
}

/** Sends `r`; an event stream is not read past its headers. */
export async function send(w: World, r: FuzzRequest): Promise<Answer> {
  if (r.wire !== undefined) return sendWire(w, r.wire);
  const res = await fetch(`${w.d.url}${r.url}`, {
    method: r.method, headers: { ...r.headers, ...credentials(w, r) }, ...bodyOf(r),
  } as RequestInit);
  const type = res.headers.get("content-type") ?? "";
  if (type.startsWith("text/event-stream")) {
    await res.body?.cancel();
    return { status: res.status, type, text: "" };
  }
  return { status: res.status, type, text: await res.text() };
}

/** The document's operation answering `r`, when its path still matches one. */
function documented(doc: any, r: FuzzRequest): any {
  const pathname = new URL(r.url, "http://x").pathname;
  for (const [path, methods] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
    const pattern = new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\\?\{[^}]+\\?\}/g, "[^/]+")}/?$`);
    if (pattern.test(pathname) && methods[r.method.toLowerCase()]) return methods[r.method.toLowerCase()];
  }
  return undefined;
}

function envelopeProblem(status: number, body: any): string | undefined {
  if (!body || typeof body !== "object" || typeof body.ok !== "boolean") return "the body is not the envelope";
  if (body.ok) return status < 300 && "data" in body ? undefined : `ok: true with status ${status}${"data" in body ? "" : " and no data"}`;
  const e = body.error;
  if (!e || typeof e.code !== "string" || typeof e.message !== "string") return "ok: false without error.code and error.message";
  const expected = ERROR_STATUS[e.code as ErrorCode];
  if (expected === undefined) return `error code ${e.code} is no code of the API`;
  return expected === status ? undefined : `error code ${e.code} is ${expected}, answered with ${status}`;
}

/** What is wrong with `answer` to `r`, or undefined. */
export function checkAnswer(doc: any, r: FuzzRequest, answer: Answer): string | undefined {
  if (answer.status >= 500) return `answered ${answer.status}`;
  const response = documented(doc, r)?.responses?.[String(answer.status)];
  const media = answer.type.split(";")[0]!.trim();
  if (response && media !== "application/json" && response.content?.[media]) return undefined; // SSE, CSV: not enveloped
  if (media !== "application/json") return `answered ${answer.status} as ${answer.type || "no content type"}, not JSON`;
  let body: unknown;
  try {
    body = JSON.parse(answer.text);
  } catch {
    return `answered ${answer.status} with text that is not JSON`;
  }
  const schema = response?.content?.["application/json"]?.schema;
  if (schema && !schema.properties?.ok) return undefined; // the document itself: JSON, no envelope
  return envelopeProblem(answer.status, body);
}

/** One line for a finding: the request (truncated), what was wrong, the answer's start. */
export function describe(f: Finding): string {
  const r = f.request;
  const body = r.wire !== undefined ? `wire ${JSON.stringify(r.wire.slice(0, 200))}` : r.body === undefined ? "" : typeof r.body === "string" ? r.body : `<${r.body.length} bytes>`;
  const answer = f.answer ? ` -> ${f.answer.status} ${f.answer.text.slice(0, 300)}` : "";
  return `${r.op} [${r.what}] as ${r.caller}: ${r.method} ${r.url.slice(0, 200)} ${JSON.stringify(r.headers)} ${body.slice(0, 300)}\n    ${f.problem}${answer}`;
}
