// A vault's verification through the daemon (GET /api/vaults/:address/verify): the chain read through
// the daemon's RPC, the exchange through its public info endpoint within the daemon's background
// request budget, and the daemon's own records (each reading's source, the vault's order rows) checked
// against them. One verification of a vault at a time; the last one is kept for the vault's page.
import * as readingsRepo from "../db/vault-readings-repo.js";
import * as verificationRepo from "../db/verification-repo.js";
import type { Executor, UnitOfWork } from "../db/store.js";
import { chainRecordsFrom } from "../verify/chain-records.js";
import { exchangeRecordsFrom } from "../verify/exchange-records.js";
import type { ChainEvent, Verification } from "../verify/records.js";
import { verifyVault } from "../verify/verify-vault.js";
import { vaultFor } from "./vault-access.js";

export interface VerificationDeps {
  db: Executor;
  work: UnitOfWork;
  /** The chain's JSON-RPC and the exchange's base URL, as the daemon uses them. */
  rpcUrl: string;
  exchangeUrl: string;
  /** Waits for request weight in the daemon's background budget. */
  spend: (weight: number) => Promise<void>;
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

export function createVaultVerification(deps: VerificationDeps) {
  const running = new Map<string, Promise<Verification>>();

  async function run(address: string, created: { block: number; time: number }, nettingFrom: number | null): Promise<Verification> {
    const chain = chainRecordsFrom(deps.rpcUrl, { fromBlock: created.block, created });
    try {
      const result = await verifyVault(address, {
        chain: chain.read,
        exchange: exchangeRecordsFrom(`${deps.exchangeUrl}/info`, { spend: deps.spend, orders: true }),
        daemon: async (vault) => ({
          nettingFrom,
          chainEvents: indexedEvents(await verificationRepo.vaultChainEventRows(deps.db, vault)),
          readings: await readingsRepo.readingsOf(deps.db, vault),
          orders: await verificationRepo.vaultOrderRows(deps.db, vault),
          ordersSettledBefore: deps.clock() - deps.orderLagMs,
        }),
      }, Math.floor(deps.clock() / 1000));
      await deps.work.write((trx) => verificationRepo.putVerification(trx, address, result.checkedAt, result.outcome, JSON.stringify(result)));
      return result;
    } finally {
      chain.close();
    }
  }

  return {
    /** Runs the vault's verification now (a party only; others get 404). */
    async verify(user: string, address: string): Promise<Verification> {
      const { vault } = await vaultFor(deps.db, user, address);
      let p = running.get(vault.address);
      if (!p) {
        p = run(vault.address, { block: vault.created_block, time: vault.created_at }, vault.netting_from).finally(() => running.delete(vault.address));
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
