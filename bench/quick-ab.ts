// scratch A/B: daemon from another tree (A), this tree (B), bare Koa; CPU per response, alternating rounds
import { startWorker } from "./lib/worker-client.js";
import { cannon } from "./lib/load.js";
import type { VaultListTarget } from "./servers/vault-list.js";
const treeA = process.env.A_TREE ?? "/tmp/base-read";
const mk = async (name: string, path: string) => {
  const w = await startWorker(path);
  const t = await w.call<VaultListTarget>("start", 1);
  return { name, w, url: `${t.url}/api/vaults`, headers: { Authorization: `Bearer ${t.cases.empty.token}` } as Record<string, string>, body: t.cases.empty.body };
};
const a = await mk("A", `${treeA}/bench/servers/vault-list.ts`);
const b = await mk("B", new URL("./servers/vault-list.ts", import.meta.url).pathname);
const bw = await startWorker(new URL("./servers/bare-koa.ts", import.meta.url).pathname);
const bu = await bw.call<{ url: string }>("start", { "/empty": a.body });
const targets = [a, b, { name: "bare", w: bw, url: `${bu.url}/empty`, headers: {} as Record<string, string> }];
for (const x of targets) await cannon({ url: x.url, headers: x.headers, connections: 64, durationS: 1 });
const res: Record<string, number[]> = { A: [], B: [], bare: [] };
const rounds = Number(process.argv[2] ?? 4);
for (let round = 0; round < rounds; round++) for (let k = 0; k < 3; k++) {
  const x = targets[(k + round) % 3]!;
  const u0 = await x.w.usage();
  const r = await cannon({ url: x.url, headers: x.headers, connections: 64, durationS: Number(process.argv[3] ?? 3) });
  const u1 = await x.w.usage();
  res[x.name]!.push(((u1.cpuMs - u0.cpuMs) * 1000) / r.total);
}
const med = (v: number[]) => [...v].sort((p, q) => p - q)[Math.floor(v.length / 2)]!;
for (const [n, v] of Object.entries(res)) console.log(n.padEnd(5), "min", Math.min(...v).toFixed(1), "median", med(v).toFixed(1), "µs/resp  all:", v.map((x) => x.toFixed(1)).join(" "));
await a.w.stop(); await b.w.stop(); await bw.stop();
