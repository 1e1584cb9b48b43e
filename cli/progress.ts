// A spinner on stderr for a step that takes a while (wallet unlock, sign-in, relayed transactions),
// on a terminal only: never with --json, never when stderr is a pipe or a file.
import type { Io } from "./output.js";

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

export function showsProgress(io: Io, json: boolean): boolean {
  return (io.stderr as NodeJS.WriteStream).isTTY === true && !json;
}

export async function withProgress<T>(io: Io, json: boolean, label: string, work: () => Promise<T>): Promise<T> {
  if (!showsProgress(io, json)) return work();
  let i = 0;
  const started = Date.now();
  const frame = () => {
    const seconds = Math.floor((Date.now() - started) / 1000);
    io.stderr.write(`\r\x1b[2K${FRAMES[i++ % FRAMES.length]} ${label}${seconds > 0 ? ` (${seconds} s)` : ""}`);
  };
  // The first frame at once: the user sees what is happening even if the step is quick.
  frame();
  const timer = setInterval(frame, 100);
  try {
    return await work();
  } finally {
    clearInterval(timer);
    io.stderr.write("\r\x1b[2K");
  }
}
