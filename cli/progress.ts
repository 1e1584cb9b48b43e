// A spinner on stderr while a transaction confirms, on a terminal only (never in scripts or --json).
import type { Io } from "./output.js";

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

export async function withProgress<T>(io: Io, json: boolean, label: string, work: () => Promise<T>): Promise<T> {
  const tty = (io.stderr as NodeJS.WriteStream).isTTY === true && !json;
  if (!tty) return work();
  let i = 0;
  const started = Date.now();
  const timer = setInterval(() => {
    io.stderr.write(`\r${FRAMES[i++ % FRAMES.length]} ${label} (${Math.floor((Date.now() - started) / 1000)} s)`);
  }, 100);
  try {
    return await work();
  } finally {
    clearInterval(timer);
    io.stderr.write("\r\x1b[2K");
  }
}
