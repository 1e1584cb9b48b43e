// A vault's verification through the daemon (GET /api/vaults/:address/verify): the chain read through
// the daemon's RPC, the exchange through its public info endpoint within the daemon's background
// request budget, and the daemon's own records (each reading's source, the vault's order rows) checked
// against them. One verification of a vault at a time; the last one is kept for the vault's page.
// A verification is a read the user asked for: its answer stands a few seconds for every party, and
// its weight is the caller's, within the users' budgets (exchange/read-budget.ts).
import * as readingsRepo from "../db/vault-readings-repo.js";
import * as verificationRepo from "../db/verification-repo.js";
import type { Executor, UnitOfWork } from "../db/store.js";
import { chainRecordsFrom } from "../verify/chain-records.js";
import { exchangeRecordsFrom } from "../verify/exchange-records.js";
import type { ChainEvent, Verification } from "../verify/records.js";
import { verifyVault } from "../verify/verify-vault.js";
import { vaultFor } from "./vault-access.js";
import type { ReadBudget } from "../exchange/read-budget.js";
import { KEPT_MS } from "../exchange/user-reads.js";
import { READ_WEIGHT } from "../exchange/weight-limiter.js";

export interface VerificationDeps {
  db: Executor;
  work: UnitOfWork;
  /** The chain's JSON-RPC and the exchange's base URL, as the daemon uses them. */
  rpcUrl: string;
  exchangeUrl: string;
  /** Waits for request weight in the daemon's background budget. */
  spend: (weight: number) => Promise<void>;
  /** The users' budgets a verification's weight is taken from, as the caller's. */
  budget: ReadBudget;
  /** How long a verification's answer stands for the vault's parties (0: every request runs one). */
  ttlMs: number;
  /** How long after an exchange change an order row may still lag it (a reconciliation pass or two). */
  orderLagMs: number;
  clock: () => number;
}

/** The indexer's rows in the verifier's shape (Funded stands for the token transfer it made). */
function indexedEvents(rows: Awaited<ReturnType<typeof verificationRepo.vaultChainEventRows>>): ChainEvent[] {
  const big = (x: unknown) => BigInt(String(x));
  return rows.flatMap((r): ChainEvent[] => {
    const at = { block: r.block, logIndex: r.logIndex, day: Math.floor(r.time / 86_400) };
    const d = r.data;
    switch (r.type) {
      case "BalanceUpdated":
        return [{ ...at, type: "BalanceUpdated", balance: big(d.balance), peak: big(d.peakBalance), dayStart: big(d.dayStartBalance), observedAt: Number(d.observedAt), drawdownBps: Number(d.drawdownBps), dailyDrawdownBps: Number(d.dailyDrawdownBps) }];
      case "Paused":
        return [{ ...at, type: "Paused", reason: Number(d.reason) }];
      case "Unpaused":
        return [{ ...at, type: "Unpaused" }];
      case "Closed":
        return [{ ...at, type: "Closed", finalBalance: big(d.finalBalance), profit: big(d.profit), traderShare: big(d.traderShare), investorShare: big(d.investorShare) }];
      case "Funded":
        return [{ ...at, type: "TokenIn", amount: big(d.amount) }];
      case "Withdrawn":
        // The contract emits Withdrawn, then the token moves out: the TokenOut sorts right after it.
        return [{ ...at, type: "Withdrawn", party: String(d.party), amount: big(d.amount) }, { ...at, logIndex: at.logIndex + 0.5, type: "TokenOut", amount: big(d.amount) }];
      default:
        return [];
    }
  });
}

/**
 * What a run spends, as `caller`'s: the weight of its first call was taken to let it start (it
 * starts only within the budget), what the run reads beyond it is added as it goes, however much.
 */
function spendAs(deps: VerificationDeps, caller: string, taken: number) {
  let credit = taken;
  return async (weight: number) => {
    deps.budget.charge(caller, Math.max(0, weight - credit));
    credit = Math.max(0, credit - weight);
    await deps.spend(weight);
  };
}

export function createVaultVerification(deps: VerificationDeps) {
  const running = new Map<string, Promise<Verification>>();
  // A kept result answers again only while the vault has recorded nothing since (a close, a reading,
  // a fill): a verification from before the close must never pass for one after it.
  const recent = new Map<string, { at: number; events: number; result: Verification }>();

  async function run(address: string, events: number, created: { block: number; time: number }, nettingFrom: number | null, spend: (weight: number) => Promise<void>): Promise<Verification> {
    const chain = chainRecordsFrom(deps.rpcUrl, { fromBlock: created.block, created });
    try {
      const result = await verifyVault(address, {
        chain: chain.read,
        exchange: exchangeRecordsFrom(`${deps.exchangeUrl}/info`, { spend, orders: true }),
        daemon: async (vault) => ({
          nettingFrom,
          chainEvents: indexedEvents(await verificationRepo.vaultChainEventRows(deps.db, vault)),
          readings: await readingsRepo.readingsOf(deps.db, vault),
          orders: await verificationRepo.vaultOrderRows(deps.db, vault),
          ordersSettledBefore: deps.clock() - deps.orderLagMs,
        }),
      }, Math.floor(deps.clock() / 1000));
      await deps.work.write((trx) => verificationRepo.putVerification(trx, address, result.checkedAt, result.outcome, JSON.stringify(result)));
      if (deps.ttlMs > 0) recent.set(address, { at: deps.clock(), events, result });
      return result;
    } finally {
      chain.close();
    }
  }

  return {
    /** Runs the vault's verification now (a party only; others get 404). */
    async verify(user: string, address: string): Promise<Verification> {
      const { vault } = await vaultFor(deps.db, user, address);
      const same = recent.get(vault.address);
      const kept = same && same.events === Number(vault.event_count) ? same : undefined;
      const age = kept ? deps.clock() - kept.at : Infinity;
      if (kept && age < deps.ttlMs) return kept.result;
      let p = running.get(vault.address);
      if (!p) {
        // Its first call is a fills read (exchange-records.ts): let through as any read of that weight.
        try {
          deps.budget.take(user, READ_WEIGHT.fills);
        } catch (err) {
          if (kept && age < KEPT_MS) return kept.result;
          throw err;
        }
        const spend = spendAs(deps, user, READ_WEIGHT.fills);
        p = run(vault.address, Number(vault.event_count), { block: vault.created_block, time: vault.created_at }, vault.netting_from, spend).finally(() => running.delete(vault.address));
        running.set(vault.address, p);
      }
      return p;
    },
    /** The vault's last verification, if it was ever verified. */
    async last(user: string, address: string): Promise<Verification | null> {
      const { vault } = await vaultFor(deps.db, user, address);
      const json = await verificationRepo.lastVerification(deps.db, vault.address);
      return json ? (JSON.parse(json) as Verification) : null;
    },
  };
}

export type VaultVerificationService = ReturnType<typeof createVaultVerification>;
