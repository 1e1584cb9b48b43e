// A read's latency while something else loads the daemon: GET <path> with a bearer token, one
// request at a time over one keep-alive connection (2 ms apart), from a process of its own, so the
// benchmark process's own work (wallets signing, say) does not delay the timing.
import { fork } from "node:child_process";
import { request, Agent } from "node:http";
import { fileURLToPath } from "node:url";
import { summarize, type LatencySummary } from "./stats.js";

/** Starts the probe in a child process; resolves with its latencies (ms) after `durationS`. */
export function probeReads(url: string, token: string, durationS: number, path = "/api/vaults"): Promise<LatencySummary> {
  return new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(import.meta.url), ["probe", url, token, String(durationS), path]);
    child.once("message", (m: LatencySummary) => resolve(m));
    child.once("error", reject);
    child.once("exit", (code) => code !== 0 && reject(new Error(`read probe exited with ${code}`)));
  });
}

async function probe(url: string, token: string, durationS: number, path: string) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const latencies: number[] = [];
  const end = Date.now() + durationS * 1000;
  while (Date.now() < end) {
    const t0 = process.hrtime.bigint();
    const status = await new Promise<number>((done, fail) => {
      const req = request(`${url}${path}`, { agent, headers: { Authorization: `Bearer ${token}` } }, (res) => {
        res.resume();
        res.on("end", () => done(res.statusCode ?? 0));
      });
      req.on("error", fail);
      req.end();
    });
    if (status !== 200) throw new Error(`read probe: ${path} answered ${status}`);
    latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
    await new Promise((r) => setTimeout(r, 2));
  }
  agent.destroy();
  process.send!(summarize(latencies));
}

if (process.argv[2] === "probe" && process.send) {
  const [, , , url, token, seconds, path] = process.argv;
  await probe(url!, token!, Number(seconds), path!);
}
