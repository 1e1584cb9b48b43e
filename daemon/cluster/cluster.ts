// The daemons sharing one database share the work out through leases (DESIGN: "Several daemons on one database").
// Every tick a daemon beats its heart, renews what it holds, gives back what is over its share, and
// takes free or expired leases up to its share: ceil(active vaults / live daemons). Besides the vaults
// there is one lease per chain for sending the operator's transactions. A lease's epoch grows at each
// acquisition; a write checks it (`fence`) so a daemon that lost a vault never writes for it.
// A daemon that also holds its presence (db/presence.ts: a mark the database drops when the process
// dies) says so in its heartbeat; the others reap it at their next round once the mark is gone, so a
// crash is taken over within a round rather than a lease's life. A stalled daemon keeps its mark:
// for it, and for a daemon whose mark is held by a session of its last life, expiry still decides.
// A daemon whose last successful round started a lease's time ago (by a monotonic clock: a process
// stopped and woken, or cut off from the database) holds nothing from that moment, in all it
// answers and to its listeners, before its next round runs: its leases may be another's by then.
// Built only for a shared (PostgreSQL) store: alone on a SQLite file a daemon holds every vault
// without leases (vaults/vault-share.ts WHOLE_SHARE).
import { performance } from "node:perf_hooks";
import type { Logger } from "pino";
import * as repo from "../db/cluster-repo.js";
import type { Executor, UnitOfWork } from "../db/database.js";
import type { Presence } from "../db/store.js";

export interface ClusterSettings {
  /** How long a lease lasts without renewal; a stopped daemon's vaults are free this long after its last tick. */
  leaseTtlMs: number;
  /** How often leases are renewed and free ones taken. */
  tickMs: number;
}

/** From the oracle's interval: a lease outlives one missed tick, and a stopped daemon's vaults are read again within two intervals. */
export function clusterSettings(oracleIntervalMs: number): ClusterSettings {
  return { leaseTtlMs: Math.round(oracleIntervalMs * 1.5), tickMs: Math.max(100, Math.round(oracleIntervalMs / 4)) };
}

export interface ClusterDeps {
  db: Executor;
  work: UnitOfWork;
  /** The database's clock (Unix ms): every daemon judges expiry by the same one. */
  now(): Promise<number>;
  id: string;
  info: Record<string, unknown>;
  /** The chain's journal key: the sender's lease is per chain. */
  chainKey: string;
  activeVaults(): Promise<string[]>;
  settings: ClusterSettings;
  /** The database's presence marks; without them a stopped daemon is noticed only when its leases expire. */
  presence?: Presence;
  log: Logger;
  /** Milliseconds on a clock that only moves forward at a steady rate; performance.now by default. */
  monotonic?: () => number;
}

export interface ClusterChange {
  gained: string[];
  lost: string[];
  /** True when this daemon just became (or stopped being) the operator's sender. */
  senderChanged: boolean;
}

const VAULT = "vault:";
const vaultKey = (address: string) => `${VAULT}${address}`;

export function createCluster(deps: ClusterDeps) {
  const { db, work, settings, log, id } = deps;
  const senderKey = repo.senderLeaseKey(deps.chainKey);
  const monotonic = deps.monotonic ?? (() => performance.now());
  /** What this daemon held at its last tick: lease key -> epoch. */
  let held = new Map<string, number>();
  /** When the last successful round started (monotonic): every lease it renewed or took expires no sooner than a TTL after. */
  let renewedAt = -Infinity;
  let lapseTimer: NodeJS.Timeout | undefined;
  const fresh = () => monotonic() - renewedAt < settings.leaseTtlMs;
  /** What this daemon may act on now: nothing once its renewal is a lease's time old. */
  const holding = (): ReadonlyMap<string, number> => (fresh() ? held : NOTHING);
  const listeners: Array<(change: ClusterChange) => void> = [];
  const reapedListeners: Array<(daemons: string[]) => void> = [];
  const rounds: Array<() => void> = [];
  let timer: NodeJS.Timeout | undefined;
  let ticking: Promise<void> | undefined;
  let stopped = false;
  let live = 1;
  let total = 0;

  /** One round: heartbeat, renew, shed what is over the share, take free leases up to it. */
  async function round(): Promise<void> {
    const started = monotonic();
    const present = deps.presence ? await holdPresence(deps.presence) : false;
    const now = await deps.now();
    const ttl = settings.leaseTtlMs;
    await work.relaxed((trx) => repo.heartbeat(trx, id, now, JSON.stringify({ ...deps.info, presence: present })));
    if (deps.presence) await reapDeparted(deps.presence, now);
    const mine = await work.relaxed((trx) => repo.renewLeases(trx, id, now, ttl));
    live = Math.max(1, (await repo.liveDaemons(db, now - ttl)).length);
    const active = await deps.activeVaults();
    total = active.length;
    const activeKeys = new Set(active.map(vaultKey));
    const share = Math.ceil(active.length / live);

    const ownedVaults = [...mine.keys()].filter((k) => k.startsWith(VAULT));
    const closed = ownedVaults.filter((k) => !activeKeys.has(k));
    const kept = ownedVaults.filter((k) => activeKeys.has(k)).sort();
    const over = kept.slice(share);
    const shed = [...closed, ...over];
    if (shed.length > 0) {
      await work.relaxed((trx) => repo.releaseLeases(trx, id, shed, now));
      for (const k of shed) mine.delete(k);
    }

    const want = share - (kept.length - over.length);
    if (want > 0) {
      const free = [...activeKeys].filter((k) => !mine.has(k));
      const taken = await repo.heldKeys(db, free, now);
      // Start at a place of our own in the list, so daemons starting together seldom race for one vault.
      const candidates = rotate(free.filter((k) => !taken.has(k)).sort(), id);
      for (const k of candidates) {
        if (mine.size - (mine.has(senderKey) ? 1 : 0) >= share) break;
        const epoch = await work.relaxed((trx) => repo.acquireLease(trx, k, id, now, ttl));
        if (epoch !== undefined) mine.set(k, epoch);
      }
    }
    if (!mine.has(senderKey)) {
      const epoch = await work.relaxed((trx) => repo.acquireLease(trx, senderKey, id, now, ttl));
      if (epoch !== undefined) mine.set(senderKey, epoch);
    }
    if (monotonic() - started >= ttl) {
      // The round itself outlasted a lease (the process was stopped mid-round): what it renewed may be gone.
      lapse();
      return;
    }
    renewedAt = started;
    publish(mine);
    armLapse();
    for (const r of rounds) r();
  }

  /** Wakes when the last renewal is a lease's time old; a timer that runs late (a stopped process) finds it so at once. */
  function armLapse(): void {
    clearTimeout(lapseTimer);
    if (stopped) return;
    lapseTimer = setTimeout(() => (fresh() ? armLapse() : lapse()), Math.max(1, renewedAt + settings.leaseTtlMs - monotonic()));
    lapseTimer.unref();
  }

  /** Every lease counts as lost; the listeners hear it now, not at the next round. */
  function lapse(): void {
    if (held.size === 0) return;
    log.warn({ daemon: id, held: held.size }, "no lease renewed for a lease's time: holding nothing until a round renews or takes them again");
    publish(new Map());
    for (const r of rounds) r();
  }

  let presenceWarned = false;
  async function holdPresence(presence: Presence): Promise<boolean> {
    const ok = await presence.hold(id).catch(() => false);
    if (!ok && !presenceWarned) log.warn({ daemon: id }, "cannot hold this daemon's presence mark (a session of a previous run may still hold it); the others will wait for its leases to expire");
    presenceWarned = !ok;
    return ok;
  }

  /** Daemons that said they hold a presence mark and no longer do: their process is gone. */
  async function reapDeparted(presence: Presence, now: number): Promise<void> {
    const marked = (await repo.daemonInfos(db)).filter((d) => d.id !== id && saysPresent(d.info)).map((d) => d.id);
    const marks = await presence.held(marked);
    const gone = marked.filter((d) => !marks.has(d));
    if (gone.length === 0) return;
    await work.relaxed((trx) => repo.reapDaemons(trx, gone, now));
    log.info({ daemon: id, gone }, "daemons gone (their presence mark dropped): their leases are free");
    for (const l of reapedListeners) l(gone);
  }

  function publish(next: Map<string, number>): void {
    const gained = [...next.keys()].filter((k) => k.startsWith(VAULT) && next.get(k) !== held.get(k));
    const lost = [...held.keys()].filter((k) => k.startsWith(VAULT) && next.get(k) !== held.get(k));
    const senderChanged = next.get(senderKey) !== held.get(senderKey);
    held = next;
    if (gained.length + lost.length === 0 && !senderChanged) return;
    const change = { gained: gained.map(addressOf), lost: lost.map(addressOf), senderChanged };
    log.info({ daemon: id, gained: gained.length, lost: lost.length, holds: vaultsHeld(), sender: holding().has(senderKey) }, "leases changed");
    for (const l of listeners) l(change);
  }

  const vaultsHeld = () => [...holding().keys()].filter((k) => k.startsWith(VAULT)).length;

  /** One round at a time; a call during a round gets the next one, which sees what the caller saw. */
  let queued: Promise<void> | undefined;
  function tick(): Promise<void> {
    const start = () => round()
      .catch((err) => log.warn({ err }, "lease round failed; holding what was held until the leases expire"))
      .finally(() => (ticking = undefined));
    if (!ticking) return (ticking = start());
    queued ??= ticking.then(() => {
      queued = undefined;
      return (ticking = start());
    });
    return queued;
  }

  return {
    id,
    /** The first round (so the oracle starts with its share), then one every tickMs. */
    async start(): Promise<void> {
      await tick();
      const next = () => {
        if (stopped) return;
        timer = setTimeout(() => void tick().finally(next), settings.tickMs);
        timer.unref();
      };
      next();
    },
    tick,
    /** Stops ticking and gives every lease back, so the others take over at their next tick. */
    async stop(): Promise<void> {
      stopped = true;
      clearTimeout(timer);
      clearTimeout(lapseTimer);
      await ticking;
      const keys = [...held.keys()];
      held = new Map();
      try {
        await work.relaxed(async (trx) => {
          await repo.releaseLeases(trx, id, keys, await deps.now());
          await repo.forgetDaemon(trx, id);
        });
      } catch (err) {
        log.warn({ err }, "could not give the leases back; they expire by themselves");
      }
    },
    /** This daemon answers for the vault (reads it, writes its balance, enforces its policy). */
    holds: (vault: string): boolean => holding().has(vaultKey(vault)),
    epochOf: (vault: string): number | undefined => holding().get(vaultKey(vault)),
    /** The fence: of `vaults`, those still held under the epoch this daemon holds them by, by the database's clock. */
    async fence(vaults: string[]): Promise<Set<string>> {
      const mine = holding();
      const expected = new Map(vaults.flatMap((v) => {
        const epoch = mine.get(vaultKey(v));
        return epoch === undefined ? [] : [[vaultKey(v), epoch] as const];
      }));
      const now = await repo.heldBy(db, id, [...expected.keys()], await deps.now());
      return new Set(vaults.filter((v) => now.get(vaultKey(v)) !== undefined && now.get(vaultKey(v)) === expected.get(vaultKey(v))));
    },
    isSender: (): boolean => holding().has(senderKey),
    senderEpoch: (): number | undefined => holding().get(senderKey),
    senderKey,
    onChange(listener: (change: ClusterChange) => void): void {
      listeners.push(listener);
    },
    /** Daemons this one found gone (their presence mark dropped), once each, as it reaps them. */
    onReaped(listener: (daemons: string[]) => void): void {
      reapedListeners.push(listener);
    },
    /** After every successful round, and when the leases lapse: what must follow the leases is reconciled here, not only on a change. */
    onRound(listener: () => void): void {
      rounds.push(listener);
    },
    /** Vaults held now by each daemon, by id (the database's view). */
    async holders(): Promise<Record<string, number>> {
      return Object.fromEntries(await repo.leaseCounts(db, VAULT, await deps.now()));
    },
    status: () => ({ daemon: id, vaultsHeld: vaultsHeld(), activeVaults: total, liveDaemons: live, sender: holding().has(senderKey) }),
  };
}

export type Cluster = ReturnType<typeof createCluster>;

const addressOf = (key: string) => key.slice(VAULT.length);
const NOTHING: ReadonlyMap<string, number> = new Map();

function saysPresent(info: string): boolean {
  try {
    return (JSON.parse(info) as { presence?: unknown }).presence === true;
  } catch {
    return false;
  }
}

/** `list` starting at a position derived from `seed`. */
function rotate<T>(list: T[], seed: string): T[] {
  if (list.length === 0) return list;
  let h = 0;
  for (const ch of seed) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
  const at = h % list.length;
  return [...list.slice(at), ...list.slice(0, at)];
}
