// Runs the CLI in-process (the same main() bin/tradevault calls) with captured output.
import { Writable } from "node:stream";
import { main } from "../../cli/main.js";

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  json: any;
}

export async function runCli(args: string[], env: Record<string, string>): Promise<CliRun> {
  let stdout = "";
  let stderr = "";
  const sink = (fn: (s: string) => void) =>
    new Writable({
      write(chunk, _enc, cb) {
        fn(String(chunk));
        cb();
      },
    });
  const code = await main(["node", "tradevault", ...args], {
    stdout: sink((s) => (stdout += s)),
    stderr: sink((s) => (stderr += s)),
    stdinIsTTY: false,
    env,
  });
  let json: unknown;
  try {
    json = JSON.parse(stdout);
  } catch {
    json = undefined;
  }
  return { code, stdout, stderr, json };
}
