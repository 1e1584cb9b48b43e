// What one durable write costs on this disk: append 4 KiB and fdatasync, as SQLite does per WAL commit.
import { closeSync, fdatasyncSync, openSync, writeSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./daemon-host.js";
import { msSince, summarize, type LatencySummary } from "./stats.js";

export function fsyncLatency(count = 200): LatencySummary {
  const dir = tempDir("tradevault-fsync-");
  const fd = openSync(join(dir.path, "probe"), "w");
  const page = Buffer.alloc(4096, 1);
  const out: number[] = [];
  try {
    for (let i = 0; i < count; i++) {
      writeSync(fd, page);
      const t = process.hrtime.bigint();
      fdatasyncSync(fd);
      out.push(msSince(t));
    }
  } finally {
    closeSync(fd);
    dir.remove();
  }
  return summarize(out);
}
