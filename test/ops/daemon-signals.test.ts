// The built `tradevaultd` stopped as an operator stops it: SIGTERM (or Ctrl-C) drains and stops, and
// the process exits 0 once stopped; a second signal during a slow drain exits 130 at once. The exit
// codes are cli-entry's main's values, which only bin/ exits with.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { connect, type Socket } from "node:net";
import { startDaemonProcess } from "../crash/_daemon-process.js";
import { tempDir, waitUntil } from "../helpers/util.js";

const stoppedLine = (log: string) => log.split("\n").some((l) => l.includes('"msg":"stopped"'));

test("SIGTERM stops the daemon in order and it exits 0", async () => {
  const dir = tempDir();
  const d = await startDaemonProcess(dir.path);
  try {
    process.kill(d.pid, "SIGTERM");
    await d.exited;
    assert.is(d.exitCode(), 0, d.log().slice(-2000));
    assert.ok(stoppedLine(d.log()), "it logged that it stopped");
  } finally {
    await d.kill();
    dir.remove();
  }
});

test("a second signal while a request holds the drain open exits 130 without waiting", async () => {
  const dir = tempDir();
  const d = await startDaemonProcess(dir.path);
  let held: Socket | undefined;
  try {
    // A request whose headers never end: the drain waits for it (up to 10 s) before anything else stops.
    const { port } = new URL(d.url);
    held = connect(Number(port), "127.0.0.1");
    await new Promise<void>((resolve, reject) => held!.once("connect", resolve).once("error", reject));
    held.on("error", () => undefined);
    held.write("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    process.kill(d.pid, "SIGINT");
    await waitUntil(() => d.log().includes("shutting down"), { slowMs: 30_000, what: "the drain to begin" });
    process.kill(d.pid, "SIGINT");
    await d.exited;
    assert.is(d.exitCode(), 130, d.log().slice(-2000));
    assert.not.ok(stoppedLine(d.log()), "it did not wait for the stop to end");
  } finally {
    held?.destroy();
    await d.kill();
    dir.remove();
  }
});

test.run();
