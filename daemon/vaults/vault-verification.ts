// A vault's verification through the daemon (GET /api/vaults/:address/verify): the chain read through
// the daemon's RPC, the exchange through its public info endpoint within the daemon's background
// request budget, and the daemon's own records (each reading's source, the vault's order rows) checked
// against them. One verification of a vault at a time; the last one is kept for the vault's page.
import * as readingsRepo from "../db/vault-readings-repo.js";
import type { Executor, UnitOfWork } from "../db/store.js";
import { chainRecordsFrom } from "../verify/chain-records.js";
import { exchangeRecordsFrom } from "../verify/exchange-records.js";
import type { Verification } from "../verify/records.js";
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

export function createVaultVerification(deps: VerificationDeps) {
  const running = new Map<string, Promise<Verification>>();

  async function run(address: string, createdBlock: number, nettingFrom: number | null): Promise<Verification> {
    const chain = chainRecordsFrom(deps.rpcUrl, { fromBlock: createdBlock });
    try {
      const result = await verifyVault(address, {
        chain: chain.read,
        exchange: exchangeRecordsFrom(`${deps.exchangeUrl}/info`, { spend: deps.spend, orders: true }),
        daemon: async (vault) => ({
          nettingFrom,
          readings: await readingsRepo.readingsOf(deps.db, vault),
          orders: await readingsRepo.vaultOrderRows(deps.db, vault),
          ordersSettledBefore: deps.clock() - deps.orderLagMs,
        }),
      }, Math.floor(deps.clock() / 1000));
      await deps.work.write((trx) => readingsRepo.putVerification(trx, address, result.checkedAt, result.outcome, JSON.stringify(result)));
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
        p = run(vault.address, vault.created_block, vault.netting_from).finally(() => running.delete(vault.address));
        running.set(vault.address, p);
      }
      return p;
    },
    /** The vault's last verification, if it was ever verified. */
    async last(user: string, address: string): Promise<Verification | null> {
      const { vault } = await vaultFor(deps.db, user, address);
      const json = await readingsRepo.lastVerification(deps.db, vault.address);
      return json ? (JSON.parse(json) as Verification) : null;
    },
  };
}

export type VaultVerificationService = ReturnType<typeof createVaultVerification>;
