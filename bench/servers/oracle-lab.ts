// Daemon side of oracle-scale: a daemon (embedded defaults: the sim, and Anvil as the embedded chain,
// in a child process; or, given `shared`, oracle-scale-shared's external Anvil and sim and maybe a
// PostgreSQL database) with its oracle loop off, grown to N active vaults, where the
// benchmark runs cycles of the daemon's own oracle and of the baseline (the same createOracle and vault
// balances over the same store, exchange and chain sender, but sending one update transaction per
// vault), and reads what they cost in gas.
import { readdirSync, readFileSync } from "node:fs";
import { Wallet } from "ethers";
import pino from "pino";
import * as vaultsRepo from "../../daemon/db/vaults-repo.js";
import { createOracle, type Oracle } from "../../daemon/oracle/oracle.js";
import { chainOps } from "../../daemon/vaults/chain-ops.js";
import { createVaultBalances } from "../../daemon/vaults/vault-balances.js";
import type { VaultChainOps } from "../../daemon/vaults/vault-chain.js";
import type { ExchangeAdapter } from "../../daemon/exchange/types.js";
import type { Store } from "../../daemon/db/store.js";
import { createVaults, hostDaemon, sharedConfig, simFaucet, type HostedDaemon, type SharedSetup } from "../lib/daemon-host.js";

export interface CycleCost {
  ms: number;
  vaults: number;
  /** Vaults whose reading the chain applied (BalanceUpdated events stored). */
  applied: number;
  transactions: number;
  gas: number;
  /** Daemon-side events the cycle wrote (BalanceMismatch, OrdersCanceled...): expected 0. */
  otherEvents: number;
  /** Wall time during which at least one exchange read (account state, ledger, fills) was in flight. */
  readMs: number;
  /** Exchange reads made. */
  reads: number;
  /** Wall time during which at least one of the store's units of work (write, relaxed) was in flight (shared set-up only, else 0). */
  writeMs: number;
  /** CPU time of the daemon's process during the cycle (the in-process sim included, Anvil not). */
  cpuMs: number;
}

/** The embedded chain's Anvil processes (descendants of this one): resident and peak resident set, KiB. */
function chainMemory(): { rssKb: number; peakKb: number } {
  const parents = new Map<number, number>();
  const names = new Map<number, string>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const close = stat.lastIndexOf(")");
      names.set(Number(entry), stat.slice(stat.indexOf("(") + 1, close));
      parents.set(Number(entry), Number(stat.slice(close + 2).split(" ")[1]));
    } catch {
      /* the process ended meanwhile */
    }
  }
  const ours = (pid: number): boolean => {
    for (let p = parents.get(pid); p !== undefined && p > 1; p = parents.get(p)) if (p === process.pid) return true;
    return false;
  };
  let rssKb = 0;
  let peakKb = 0;
  for (const [pid, name] of names) {
    if (name !== "anvil" || !ours(pid)) continue;
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    rssKb += Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
    peakKb += Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
  }
  return { rssKb, peakKb };
}

/**
 * Wraps `methods` of `target` to add up the wall time with at least one call in flight, and count the
 * calls: which step of a cycle its time went to. `ms()` includes a stretch still open, so the
 * difference of two readings is what fell between them, even for a call that spans a reading (the
 * indexer's write may).
 */
function timeCalls<T extends object>(target: T, methods: readonly (keyof T & string)[]) {
  let inFlight = 0;
  let since = 0;
  let closed = 0;
  const total = { calls: 0, ms: () => closed + (inFlight > 0 ? performance.now() - since : 0) };
  for (const name of methods) {
    const call = (target[name] as (...args: unknown[]) => Promise<unknown>).bind(target);
    (target as Record<string, unknown>)[name] = async (...args: unknown[]) => {
      total.calls += 1;
      if (inFlight++ === 0) since = performance.now();
      try {
        return await call(...args);
      } finally {
        if (--inFlight === 0) closed += performance.now() - since;
      }
    };
  }
  return total;
}

const timeReads = (exchange: ExchangeAdapter) => timeCalls(exchange, ["accountState", "ledgerUpdates", "fills"]);
const timeWrites = (store: Store) => timeCalls(store, ["write", "relaxed"]);

export function serve() {
  let hosted: HostedDaemon | undefined;
  let reads = { ms: () => 0, calls: 0 };
  let writes = { ms: () => 0, calls: 0 };
  let faucet: ((user: string, amount: number) => Promise<unknown>) | undefined;
  const oracles: Partial<Record<"daemon" | "unbatched", Oracle>> = {};
  const trader = Wallet.createRandom();

  const d = () => hosted!.daemon;
  const events = () => d().store.db.selectFrom("vault_events").select((eb) => eb.fn.countAll<number>().as("n"));
  const count = async (type: string) => Number((await events().where("type", "=", type).executeTakeFirstOrThrow()).n);
  const daemonEvents = async () => Number((await events().where("tx", "is", null).executeTakeFirstOrThrow()).n);

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
  /**
   * The baseline's gas, counted as each transaction is mined: the embedded Anvil keeps only its last
   * blocks (--prune-history, --transaction-block-keeper 64), so a thousand one-vault transactions
   * can no longer be read back from the blocks once the cycle is over.
   */
  let sent = { gas: 0, transactions: 0 };

  async function measure(what: () => Promise<void>, counted = false): Promise<CycleCost> {
    sent = { gas: 0, transactions: 0 };
    const block = await d().chain.provider.getBlockNumber();
    const [applied0, other0] = [await count("BalanceUpdated"), await daemonEvents()];
    const reads0 = { ms: reads.ms(), calls: reads.calls };
    const writes0 = writes.ms();
    const cpu0 = process.cpuUsage();
    const t = process.hrtime.bigint();
    await what();
    const ms = Number(process.hrtime.bigint() - t) / 1e6;
    const cpu = process.cpuUsage(cpu0);
    const cpuMs = (cpu.user + cpu.system) / 1000;
    const readMs = reads.ms() - reads0.ms;
    const readCalls = reads.calls - reads0.calls;
    const writeMs = writes.ms() - writes0;
    const vaults = (await vaultsRepo.activeVaults(d().store.db)).length; // outside the timed window
    return {
      ms, vaults, applied: (await count("BalanceUpdated")) - applied0, otherEvents: (await daemonEvents()) - other0, readMs, reads: readCalls, writeMs, cpuMs,
      ...(counted ? sent : await gasSince(block)),
    };
  }

  return {
    /** Starts the daemon; the store it runs on. */
    async start(shared?: SharedSetup): Promise<Store["kind"]> {
      hosted = await hostDaemon({ startOracle: false, ...(shared ? { config: sharedConfig(shared) } : {}) });
      reads = timeReads(d().exchange);
      if (shared) {
        faucet = (user, amount) => simFaucet(shared.exchangeUrl, user, amount);
        // oracle-scale-shared's split of a cycle; oracle-scale's daemon is left as it was measured.
        writes = timeWrites(d().store);
      }
      const gasLimit = (await d().chain.provider.getBlock("latest"))!.gasLimit;
      const ops = chainOps(d().chain, gasLimit, d().indexer, pino({ level: "silent" }));
      oracles.daemon = d().oracle;
      const oneByOne: VaultChainOps = {
        ...ops,
        async updateBalances(readings) {
          const out = { paused: [] as string[], txHashes: [] as string[], failures: [] as unknown[] };
          for (const r of readings) {
            const one = await ops.updateBalances([r]);
            for (const hash of one.txHashes) {
              sent.gas += Number((await d().chain.provider.getTransactionReceipt(hash))!.gasUsed);
              sent.transactions += 1;
            }
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
        // One transaction after another takes 30-60 s for 1000 vaults on a loaded machine: the cycle's
        // deadline (its interval) must not cut the baseline short.
        clock: Date.now, log, intervalMs: 600_000,
      });
      return d().store.kind;
    },
    /** Adds vaults until `total` are active; the seconds it took. */
    async grow(total: number): Promise<number> {
      const t = Date.now();
      const have = (await vaultsRepo.activeVaults(d().store.db)).length;
      if (total > have) await createVaults(d(), trader, total - have, { parallel: 50, faucet });
      return (Date.now() - t) / 1000;
    },
    /** One cycle of the daemon's own oracle, or of the unbatched baseline. */
    cycle: (which: "daemon" | "unbatched") =>
      measure(() => oracles[which]!.cycle(), which === "unbatched"),
    /** The embedded chain's memory (a process of its own, so not in the worker's own figures). */
    chainMemory: async () => chainMemory(),
    close: () => hosted?.close(),
  };
}
