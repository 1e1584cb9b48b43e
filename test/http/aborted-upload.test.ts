// A client that declares a longer body than it sends and then drops the connection: the daemon notes
// it at debug level (the client's doing, no defect) and logs nothing at error level.
import { connect } from "node:net";
import { Writable } from "node:stream";
import pino from "pino";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { startTestDaemon, type TestDaemon } from "../helpers/daemon.js";
import { waitUntil } from "../helpers/util.js";

interface Line { level: number; msg: string; path?: string; status?: number }

const t = suite<{ d: TestDaemon; lines: Line[] }>("aborted upload");
t.before(async (ctx) => {
  ctx.lines = [];
  const sink = new Writable({ write: (chunk, _e, done) => (ctx.lines.push(JSON.parse(String(chunk))), done()) });
  ctx.d = await startTestDaemon({ startOracle: false, log: pino({ level: "debug" }, sink) });
});
t.after(async (ctx) => {
  await ctx.d.close();
});

/** Sends the head and `body`, then destroys the socket once the bytes are written. */
function abortUpload(url: string, head: string, body: string): Promise<void> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(`${head}\r\n\r\n${body}`, () => (socket.destroy(), resolve())));
    socket.on("error", reject);
  });
}

const cases: Record<string, { path: string; head: string; body: string }> = {
  "declared length": {
    path: "/api/auth/challenge",
    head: "POST /api/auth/challenge HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100",
    body: '{"address":"0x',
  },
  chunked: {
    path: "/api/auth/login",
    head: "POST /api/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked",
    body: 'e\r\n{"address":"0x\r\n',
  },
};

for (const [name, c] of Object.entries(cases)) {
  t(`${name}: the abort is a debug line, never an error line`, async ({ d, lines }) => {
    const before = lines.length;
    await abortUpload(d.url, c.head, c.body);
    const done = await waitUntil(() => lines.slice(before).find((l) => l.msg === "request" && l.path === c.path), { what: "the access log line" });
    const mine = lines.slice(before);
    assert.equal(mine.filter((l) => l.level >= 50), [], "no error-level line");
    assert.ok(mine.some((l) => l.level === 20 && /aborted/.test(l.msg)), JSON.stringify(mine));
    assert.is(done!.status, 400);
  });
}

t.run();
