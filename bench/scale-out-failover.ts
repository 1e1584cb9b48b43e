// scale-out, failover: all the daemons running, each with an exchange budget of its own; one is
// SIGKILLed, in turn; for each vault it held, the time from the kill to the first reading of that
// vault written by a survivor (stored, as the watch sees it). The kill's failover time is the longest
// of its vaults'. The killed daemon is then started again (same data directory, so the same daemon
// id), and the next kill waits until the vaults are shared among all again and each has been read.
// Every bucket is full at each kill: a cluster under its capacity refills its buckets between
// events, but kills half a minute apart would find them spent by the last restart's first reads
// (each a ledger read, 20 weight, besides the account's 2). The last `spent` kills are made with
// every bucket drained instead: a cluster run at its capacity, whose survivors have no weight to spare.
import type { Arrival, BalanceWatch } from "./lib/balance-watch.js";
import type { ClusterRig } from "./lib/cluster-rig.js";
import { waitReadings, waitShared } from "./lib/cluster-waits.js";
import { fmt, progress } from "./lib/report.js";
import type { ProxyStats } from "./servers/budget-proxy.js";
import { waitUntil } from "../test/helpers/util.js";

export interface FailoverKill {
  /** The survivors' buckets at the kill. */
  budget: "full" | "drained";
  /** Which daemon, and whether it was the operator's sender (its sending moved too). */
  daemon: number;
  sender: boolean;
  vaults: number;
  /** Kill to the first survivor's reading, per vault it held, ms. */
  perVaultMs: number[];
  /** The longest of them: this kill's failover time. */
  failoverMs: number;
  /** By when those readings were taken (their observedAt, whole seconds, rounded up: stamped when the account state answered), ms after the kill. */
  readByMs: number;
  /** Time the survivors' exchange requests waited for budget from the kill to the last of those readings, ms. */
  survivorsWaitedMs: number;
}

/**
 * Of `lost` (lower-case addresses), each vault's first reading by a survivor, or undefined while one
 * has none. The victim's last readings can still be stored after the kill (a transaction it handed
 * to the sender, or sent itself, mined after), so a reading is told by who had its transaction sent,
 * not by its time: one the victim handed over (its tx_requests row), or, when the victim was the
 * sender, one under a nonce it had signed by the kill (`lastNonce`, read once it was dead: a later
 * sender's nonces are higher), is the victim's; any other stored after the kill is a survivor's
 * (survivors begin as soon as the victim's presence mark drops, within a second of the kill).
 */
export function firstSurvivorReadings(arrivals: Arrival[], lost: string[], killedAt: number, victim: { id: string; sender: boolean; lastNonce: number }): Arrival[] | undefined {
  const victims = (a: Arrival) => a.requester === victim.id || (a.requester === null && victim.sender && (a.nonce === null || a.nonce <= victim.lastNonce));
  const first = lost.map((v) => arrivals.find((a) => a.seenMs >= killedAt && !victims(a) && a.vault.toLowerCase() === v));
  return first.every((a) => a !== undefined) ? (first as Arrival[]) : undefined;
}

/** Kills daemon `victim` with every bucket as `budget` says, and times its vaults' first readings by a survivor. */
async function killOnce(rig: ClusterRig, watch: BalanceWatch, victim: number, budget: FailoverKill["budget"]): Promise<FailoverKill> {
  const id = rig.idOf(victim);
  const lost = (await rig.leases()).filter((l) => l.holder === id).map((l) => l.vault.toLowerCase());
  if (lost.length === 0) throw new Error(`daemon ${victim} held no vault before its kill`);
  const sender = (await rig.sender()) === id;
  const waited = async () => (await rig.proxies.call<ProxyStats[]>("stats")).reduce((n, st, i) => n + (i === victim ? 0 : st.waitedMs), 0);
  await rig.proxies.call("budget", budget);
  const waitedBefore = await waited();
  const killedAt = Date.now();
  await rig.daemons[victim]!.kill();
  rig.daemons[victim] = undefined;
  const lastNonce = await watch.lastNonce();
  const firsts = (await waitUntil(() => firstSurvivorReadings(watch.since(killedAt), lost, killedAt, { id, sender, lastNonce }), {
    slowMs: 120_000, intervalMs: 50, what: `daemon ${victim}'s ${lost.length} vaults read by a survivor`,
  }))!;
  const perVaultMs = firsts.map((a) => a.seenMs - killedAt);
  const readByMs = Math.max(...firsts.map((a) => (a.observedAt + 1) * 1000 - killedAt));
  return { budget, daemon: victim, sender, vaults: lost.length, perVaultMs, failoverMs: Math.max(...perVaultMs), readByMs, survivorsWaitedMs: (await waited()) - waitedBefore };
}

export async function failover(rig: ClusterRig, watch: BalanceWatch, vaults: string[], daemons: number, kills: { full: number; spent: number }): Promise<FailoverKill[]> {
  const live = Array.from({ length: daemons }, (_, i) => i);
  await rig.proxies.call("budget", "full");
  const starting = Date.now();
  await Promise.all(live.map((i) => rig.start(i)));
  const started = Date.now();
  const shared = await waitShared(rig, live, vaults.length);
  await waitReadings(watch, vaults, shared, 1);
  progress(`failover: ${daemons} daemons started in ${fmt((started - starting) / 1000)} s, shared the vaults ${fmt((shared - started) / 1000)} s later, ` +
    `every vault read ${fmt((Date.now() - shared) / 1000)} s after that`);
  const out: FailoverKill[] = [];
  for (let k = 0; k < kills.full + kills.spent; k++) {
    const kill = await killOnce(rig, watch, k % daemons, k < kills.full ? "full" : "drained");
    out.push(kill);
    const restarting = Date.now();
    await rig.start(kill.daemon);
    const started = Date.now();
    const shared = await waitShared(rig, live, vaults.length);
    await waitReadings(watch, vaults, shared, 1);
    progress(`kill ${k + 1} (${kill.budget} buckets): daemon ${kill.daemon}${kill.sender ? " (sender)" : ""}, ${kill.vaults} vaults' reads begun by ${fmt(kill.readByMs / 1000)} s, written after ` +
      `${fmt(kill.failoverMs / 1000)} s; restarted in ${fmt((started - restarting) / 1000)} s, shared again ${fmt((shared - started) / 1000)} s later, ` +
      `every vault read ${fmt((Date.now() - shared) / 1000)} s after that`);
  }
  await rig.stopAll();
  return out;
}
