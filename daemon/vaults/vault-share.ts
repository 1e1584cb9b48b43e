// Which vaults this daemon answers for. With several daemons on one database each holds a share of
// the open vaults under a lease (cluster/cluster.ts); the oracle's periodic work (reads, balance
// writes, early writes, breach enforcement, the dead-man's switch) covers only that share. What a
// user asks for (a trade's pre-check, a close, an unpause) runs on whichever daemon received it.
export interface VaultShare {
  holds(vault: string): boolean;
  /** Of `vaults`, those still held under the lease they were read under: a balance write passes this fence. */
  fence(vaults: string[]): Promise<Set<string>>;
  /** A lease round now (each oracle cycle starts with one): a vault opened since the last is taken at once. */
  refresh(): Promise<void>;
}

/** One daemon alone: every vault is its own. */
export const WHOLE_SHARE: VaultShare = { holds: () => true, fence: async (vaults) => new Set(vaults), refresh: async () => undefined };
