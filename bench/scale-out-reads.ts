// scale-out, reads: authenticated GET /api/vaults (the trader's list of every vault) under autocannon
// from this process, all connections to one daemon, then the same connections split between two
// daemons, alternating run by run. Both daemons run (oracle, leases) in both cases: only where the
// requests go differs. The session was made on one daemon; the other finds it in the shared database.
import { signIn, type AnyWallet } from "./lib/daemon-host.js";
import { cannon, type CannonResult } from "./lib/load.js";
import type { ClusterRig } from "./lib/cluster-rig.js";
import { waitShared } from "./lib/cluster-waits.js";

export interface ReadsSize {
  connections: number;
  durationS: number;
  runs: number;
  warmupS: number;
}

export interface ReadsRun {
  one: CannonResult;
  /** The two daemons' halves. */
  two: [CannonResult, CannonResult];
}

export async function reads(rig: ClusterRig, trader: AnyWallet, vaults: number, size: ReadsSize): Promise<ReadsRun[]> {
  // The oracle's exchange reads are not what is measured here.
  await rig.proxies.call("budget", "open");
  const [a, b] = await Promise.all([rig.start(0), rig.start(1)]);
  try {
    await waitShared(rig, [0, 1], vaults);
    const token = await signIn(a!.url, trader);
    const headers = { Authorization: `Bearer ${token}` };
    const check = await fetch(`${b!.url}/api/vaults`, { headers });
    const listed = ((await check.json()) as { data?: { vaults: unknown[] } }).data?.vaults.length;
    if (check.status !== 200 || listed !== vaults) throw new Error(`GET /api/vaults on the second daemon: ${check.status}, ${listed} vaults`);
    const load = (url: string, connections: number, durationS: number) => cannon({ url: `${url}/api/vaults`, connections, durationS, headers });
    const half = Math.max(1, Math.floor(size.connections / 2));
    const split = (durationS: number) => Promise.all([load(a!.url, half, durationS), load(b!.url, size.connections - half, durationS)]);
    await load(a!.url, size.connections, size.warmupS);
    await split(size.warmupS);
    const runs: ReadsRun[] = [];
    // Which goes first alternates run by run, so drift on the machine lands on both alike.
    for (let i = 0; i < size.runs; i++) {
      const one = () => load(a!.url, size.connections, size.durationS);
      const two = () => split(size.durationS);
      if (i % 2 === 0) runs.push({ one: await one(), two: await two() });
      else runs.push({ two: await two(), one: await one() });
    }
    return runs;
  } finally {
    await rig.stopAll();
  }
}

export const twoRps = (r: ReadsRun) => r.two[0].rps + r.two[1].rps;
export const failedOf = (runs: ReadsRun[]) => runs.reduce((n, r) => n + r.one.failed + r.two[0].failed + r.two[1].failed, 0);
