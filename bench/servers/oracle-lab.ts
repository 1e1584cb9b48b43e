// Daemon side of oracle-scale: a daemon with its oracle loop off, grown to N active vaults, where the
// benchmark runs cycles of the daemon's own oracle and of the baseline (the same createOracle and vault
// balances over the same store, exchange and chain sender, but sending one update transaction per
// vault), and reads what they cost in gas.
import { Wallet } from "ethers";
import pino from "pino";
import * as vaultsRepo from "../../daemon/db/vaults-repo.js";
import { createOracle, type Oracle } from "../../daemon/oracle/oracle.js";
import { chainOps } from "../../daemon/vaults/chain-ops.js";
import { createVaultBalances } from "../../daemon/vaults/vault-balances.js";
import type { VaultChainOps } from "../../daemon/vaults/vault-chain.js";
import { createVaults, hostDaemon, type HostedDaemon } from "../lib/daemon-host.js";
import { sqliteHandle } from "../../daemon/db/sqlite-store.js";

export interface CycleCost {
  ms: number;
  vaults: number;
  /** Vaults whose reading the chain applied (BalanceUpdated events stored). */
  applied: number;
  transactions: number;
  gas: number;
  /** Daemon-side events the cycle wrote (BalanceMismatch, OrdersCanceled...): expected 0. */
  otherEvents: number;
}

export function serve() {
  let hosted: HostedDaemon | undefined;
  const oracles: Partial<Record<"daemon" | "unbatched", Oracle>> = {};
  const trader = Wallet.createRandom();

  const d = () => hosted!.daemon;
  const count = (type: string) =>
    (sqliteHandle(d().store).prepare("select count(*) n from vault_events where type = ?").get(type) as { n: number }).n;
  const daemonEvents = () =>
    (sqliteHandle(d().store).prepare("select count(*) n from vault_events where tx is null").get() as { n: number }).n;

  /** Gas and transaction count of the blocks after `from` (each operator transaction mines its own block). */
  async function gasSince(from: number): Promise<{ gas: number; transactions: number }> {
    const to = await d().chain.provider.getBlockNumber();
    let gas = 0;
    let transactions = 0;
    for (let n = from + 1; n <= to; n++) {
      for (const hash of (await d().chain.provider.getBlock(n))?.transactions ?? []) {
        gas += Number((await d().chain.provider.getTransactionReceipt(hash))!.gasUsed);
        transactions += 1;
      }
    }
    return { gas, transactions };
  }

  async function measure(what: () => Promise<void>): Promise<CycleCost> {
    const block = await d().chain.provider.getBlockNumber();
    const [applied0, other0] = [count("BalanceUpdated"), daemonEvents()];
    const t = process.hrtime.bigint();
    await what();
    const ms = Number(process.hrtime.bigint() - t) / 1e6;
    const vaults = (await vaultsRepo.activeVaults(d().store.db)).length; // outside the timed window
    return { ms, vaults, applied: count("BalanceUpdated") - applied0, otherEvents: daemonEvents() - other0, ...(await gasSince(block)) };
  }

  return {
    async start(): Promise<void> {
      hosted = await hostDaemon({ startOracle: false });
      const gasLimit = (await d().chain.provider.getBlock("latest"))!.gasLimit;
      const ops = chainOps(d().chain, gasLimit);
      oracles.daemon = d().oracle;
      const oneByOne: VaultChainOps = {
        ...ops,
        async updateBalances(readings) {
          const out = { paused: [] as string[], txHashes: [] as string[], failures: [] as unknown[] };
          for (const r of readings) {
            const one = await ops.updateBalances([r]);
            out.paused.push(...one.paused);
            out.txHashes.push(...one.txHashes);
            out.failures.push(...one.failures);
          }
          return out;
        },
      };
      const log = pino({ level: "silent" });
      const balances = createVaultBalances({
        db: d().store.db, work: d().store, exchange: d().exchange, chain: oneByOne, clock: Date.now, log, publish: () => undefined,
      });
      oracles.unbatched = createOracle({
        poll: async () => {
          const vaults = await vaultsRepo.activeVaults(d().store.db);
          const { read } = await balances.update(vaults);
          for (const v of vaults) if (balances.fillsDue(v.address)) await balances.recordFills(v).catch(() => undefined);
          return { active: vaults.length, due: vaults.length, read };
        },
        probe: async () => undefined, upkeep: async () => undefined,
        clock: Date.now, log, intervalMs: 60_000,
      });
    },
    /** Adds vaults until `total` are active; the seconds it took. */
    async grow(total: number): Promise<number> {
      const t = Date.now();
      const have = (await vaultsRepo.activeVaults(d().store.db)).length;
      if (total > have) await createVaults(d(), trader, total - have, { parallel: 50 });
      return (Date.now() - t) / 1000;
    },
    /** One cycle of the daemon's own oracle, or of the unbatched baseline. */
    cycle: (which: "daemon" | "unbatched") =>
      measure(() => oracles[which]!.cycle()),
    close: () => hosted?.close(),
  };
}
