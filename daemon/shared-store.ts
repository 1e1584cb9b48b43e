// Composition for several daemons on one PostgreSQL database (docs/cluster.md): the
// daemon's id, the chain's shared sending, the leases that share the vaults out, and what a change of
// lease sets off. Alone on a SQLite file a daemon needs none of it: it holds every vault.
import type { Indexer } from "./vaults/chain-indexer.js";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import type { Logger } from "pino";
import type { Chain, SharedSending } from "./chain/chain.js";
import { clusterSettings, createCluster, type Cluster } from "./cluster/cluster.js";
import type { Config } from "./config.js";
import type { Store } from "./db/database.js";
import { activeVaults } from "./db/vaults-repo.js";
import { WHOLE_SHARE, type VaultShare } from "./vaults/vault-share.js";

/** This data directory's daemon id, made on first start: a restarted daemon takes its own leases back at once. */
export function daemonId(dataDir: string): string {
  const path = join(dataDir, "daemon-id");
  if (existsSync(path)) return readFileSync(path, "utf8").trim();
  mkdirSync(dataDir, { recursive: true });
  const id = `${hostname().replace(/[^a-zA-Z0-9.-]/g, "").slice(0, 40) || "daemon"}-${randomBytes(4).toString("hex")}`;
  writeFileSync(path, `${id}\n`, { flag: "wx" });
  return id;
}

/** The chain's sending for a shared store: relayed unless this daemon holds the sender's lease. */
export function sharedSending(store: Store, config: Config): SharedSending | undefined {
  if (store.kind !== "postgres") return undefined;
  return { requester: daemonId(config.dataDir), lock: (name, fn) => store.exclusive(name, fn) };
}

export interface Membership {
  cluster?: Cluster;
  share: VaultShare;
}

/** The leases of a shared store; the whole share alone. */
export function membership(store: Store, config: Config, chain: Chain, log: Logger): Membership {
  if (store.kind !== "postgres") return { share: WHOLE_SHARE };
  const cluster = createCluster({
    db: store.db, work: store, now: () => store.now(), id: daemonId(config.dataDir),
    info: { pid: process.pid, host: hostname(), dataDir: config.dataDir },
    chainKey: chain.key, log,
    activeVaults: async () => (await activeVaults(store.db)).map((v) => v.address),
    settings: clusterSettings(config.oracleInterval * 1000),
    presence: store.presence,
  });
  return { cluster, share: { holds: cluster.holds, fence: cluster.fence, refresh: cluster.tick } };
}

/**
 * Starts the lease rounds. A sender's lease gained or lost promotes or demotes the chain's sending;
 * vaults gained are read and written at once (a stopped daemon's vaults are not left for a whole
 * interval) and their breach policy checked.
 */
export async function joinCluster(
  m: Membership, chain: Chain, indexer: Pick<Indexer, "start" | "stop">, log: Logger,
  onGained: (vaults: string[]) => void,
): Promise<void> {
  const { cluster } = m;
  if (!cluster) return;
  // Every round, not only on a change: a promotion that failed (the chain did not answer) is tried
  // again; and when the leases lapse unrenewed, at once. The sending follows the lease's epoch: a
  // lease won again is a new epoch and a new sender. The chain's indexer follows the sending: one
  // daemon reads the logs for all, and another takes over within a lease round when it stops.
  cluster.onRound(() => {
    const sending = chain.sending;
    if (!sending) return;
    const epoch = cluster.senderEpoch();
    if (epoch !== undefined) indexer.start();
    else void indexer.stop();
    void sending.follow(epoch)
      .catch((err) => log.error({ err }, "changing the operator's sender failed; the next lease round tries again"));
  });
  cluster.onChange((change) => {
    if (change.gained.length > 0) onGained(change.gained);
  });
  await cluster.start();
}
