// The states a scale-out run waits for, read from the database the daemons share: the vaults shared
// out among the live daemons, and every vault read again since a moment.
import { waitUntil } from "../../test/helpers/util.js";
import type { BalanceWatch } from "./balance-watch.js";
import type { ClusterRig } from "./cluster-rig.js";

/**
 * Every one of `vaults` leased, each of the daemons `live` holding its share (ceil or floor of
 * vaults / live), none held by another, and one of them the sender. Resolves to the moment it saw it.
 */
export async function waitShared(rig: ClusterRig, live: number[], vaults: number, slowMs = 120_000): Promise<number> {
  const ids = new Set(live.map((i) => rig.idOf(i)));
  const low = Math.floor(vaults / live.length);
  const high = Math.ceil(vaults / live.length);
  await waitUntil(async () => {
    const leases = await rig.leases();
    const counts = new Map<string, number>();
    for (const l of leases) counts.set(l.holder, (counts.get(l.holder) ?? 0) + 1);
    const shared = leases.length === vaults && counts.size === ids.size && [...counts].every(([h, n]) => ids.has(h) && n >= low && n <= high);
    return shared && ids.has((await rig.sender()) ?? "");
  }, { slowMs, intervalMs: 100, what: `${vaults} vaults shared among daemons ${live.join(", ")} with one of them sending` });
  return Date.now();
}

/** Until each of `vaults` has `times` readings stored since `fromMs`. */
export async function waitReadings(watch: BalanceWatch, vaults: string[], fromMs: number, times = 1, slowMs = 120_000): Promise<number> {
  const want = new Set(vaults.map((v) => v.toLowerCase()));
  await waitUntil(() => {
    const counts = new Map<string, number>();
    for (const a of watch.since(fromMs)) counts.set(a.vault.toLowerCase(), (counts.get(a.vault.toLowerCase()) ?? 0) + 1);
    return [...want].every((v) => (counts.get(v) ?? 0) >= times);
  }, { slowMs, intervalMs: 50, what: `every vault read ${times} time(s) since ${new Date(fromMs).toISOString()}` });
  return Date.now();
}
