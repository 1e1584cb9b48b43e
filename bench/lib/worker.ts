// The child side of a benchmark: started by worker-client.ts with `node --import tsx worker.ts
// <module>`, it imports the module, builds its server object (`serve()`), and answers calls over IPC
// until told to stop; then it reports its own peak RSS and CPU time, and exits.
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { pathToFileURL } from "node:url";

interface Call {
  id: number;
  method: string;
  args: unknown[];
}

type Api = Record<string, (...args: any[]) => unknown>;

const send = (msg: unknown) => new Promise<void>((resolve) => process.send!(msg, () => resolve()));

/** Peak resident set (KiB) and CPU time used so far (ms). */
function usage() {
  const u = process.resourceUsage();
  return { maxRssKb: u.maxRSS, rssKb: Math.round(process.memoryUsage.rss() / 1024),
    heapKb: Math.round(process.memoryUsage().heapUsed / 1024),
    externalKb: Math.round(process.memoryUsage().external / 1024), cpuMs: (u.userCPUTime + u.systemCPUTime) / 1000 };
}

let inspector: Session | undefined;

/** CPU profile of the worker between "start" and a second call naming the .cpuprofile file to write. */
async function profile(cmd: "start" | string): Promise<string | null> {
  if (cmd === "start") {
    inspector = new Session();
    inspector.connect();
    await inspector.post("Profiler.enable");
    await inspector.post("Profiler.start");
    return null;
  }
  const { profile } = await inspector!.post("Profiler.stop");
  inspector!.disconnect();
  inspector = undefined;
  writeFileSync(cmd, JSON.stringify(profile));
  return cmd;
}

const describe = (err: unknown) => (err instanceof Error ? `${err.message}\n${err.stack ?? ""}` : String(err));

/** JSON-safe: bigints become decimal strings. */
const plain = (value: unknown) => JSON.parse(JSON.stringify(value ?? null, (_k, v) => (typeof v === "bigint" ? v.toString() : v)));

async function main() {
  const modulePath = process.argv[2];
  if (!modulePath || !process.send) throw new Error("usage: worker.ts <module> (forked with an IPC channel)");
  const mod = (await import(pathToFileURL(modulePath).href)) as { serve(): Api | Promise<Api> };
  const api = await mod.serve();
  process.on("message", async (msg: Call) => {
    if (msg.method === "__profile") {
      await send({ id: msg.id, ok: true, value: await profile(msg.args[0] as "start" | string) });
      return;
    }
    if (msg.method === "__usage") {
      await send({ id: msg.id, ok: true, value: usage() });
      return;
    }
    if (msg.method === "__stop") {
      let error: string | undefined;
      try {
        await api.close?.();
      } catch (err) {
        error = describe(err);
      }
      await send({ id: msg.id, ok: !error, error, value: usage() });
      process.exit(0);
    }
    try {
      const fn = api[msg.method];
      if (!fn) throw new Error(`the worker has no method ${msg.method}`);
      await send({ id: msg.id, ok: true, value: plain(await fn(...msg.args)) });
    } catch (err) {
      await send({ id: msg.id, ok: false, error: describe(err) });
    }
  });
  await send({ ready: true });
}

main().catch(async (err) => {
  if (process.send) await send({ ready: false, error: describe(err) });
  else console.error(err);
  process.exit(1);
});
