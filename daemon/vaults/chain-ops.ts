// VaultChainOps on the chain module: every call goes through the operator's one sender (the
// OperatorSigner), and each mined receipt's events are written to the database before the call
// returns (the indexer's write-through), so the API never lags the chain.
import type { Logger } from "pino";
import type { Chain } from "../chain/chain.js";
import * as contracts from "../chain/contracts.js";
import type { TxResult } from "../chain/tx.js";
import type { Indexer } from "./chain-indexer.js";
import type { VaultChainOps } from "./vault-chain.js";

/** Readings per transaction: what fits in 80% of a block at the planned per-vault gas. */
export function batchSize(blockGasLimit: bigint): number {
  const room = (blockGasLimit * 8n) / 10n - contracts.UPDATE_GAS_BASE;
  return Math.max(1, Math.min(1_000, Number(room / contracts.UPDATE_GAS_PER_VAULT)));
}

export function chainOps(chain: Chain, blockGasLimit: bigint, indexer: Pick<Indexer, "applyReceipt">, log: Logger): VaultChainOps {
  const { signer, addresses } = chain;
  const perTx = batchSize(blockGasLimit);
  /** The transaction's events recorded now; one that cannot be is the indexer loop's to find. */
  async function recorded<R extends TxResult>(r: R): Promise<R> {
    await indexer.applyReceipt(r.receipt)
      .catch((err) => log.error({ err, txHash: r.txHash }, "writing a receipt's events through failed; the indexer finds them"));
    return r;
  }
  return {
    chainId: () => chain.chainId,
    factory: () => addresses.factory,

    async createVault(terms, investorSignature, traderSignature) {
      const r = await recorded(await contracts.createVault(signer, { factory: addresses.factory, terms, investorSignature, traderSignature }));
      return { vault: r.vault, txHash: r.txHash };
    },

    async updateBalances(readings) {
      const paused: string[] = [];
      const txHashes: string[] = [];
      const failures: unknown[] = [];
      for (let i = 0; i < readings.length; i += perTx) {
        const batch = readings.slice(i, i + perTx);
        const gasLimit = contracts.UPDATE_GAS_BASE + contracts.UPDATE_GAS_PER_VAULT * BigInt(batch.length);
        // A failed batch must not hide what the others paused: the contract reports a pause once.
        try {
          const r = await recorded(await contracts.updateBalances(signer, { factory: addresses.factory, readings: batch, gasLimit }));
          paused.push(...r.paused.map((p) => p.vault));
          txHashes.push(r.txHash);
        } catch (err) {
          failures.push(err);
        }
      }
      return { paused, txHashes, failures };
    },

    closeVault: async (vault) => ({ txHash: (await recorded(await contracts.closeVault(signer, { vault }))).txHash }),
    unpauseVault: async (vault) => ({ txHash: (await recorded(await contracts.unpauseVault(signer, { vault }))).txHash }),
    pauseVault: async (vault, reason) => ({ txHash: (await recorded(await contracts.pauseVault(signer, { vault, reason }))).txHash }),
    async withdraw(vault, party) {
      const r = await recorded(await contracts.withdrawFromVault(signer, { vault, party }));
      return { txHash: r.txHash, amount: r.amount, recipient: r.recipient };
    },
    async escrow(vault) {
      const s = await contracts.readVaultState(chain.provider, { vault });
      return { held: s.escrow, owedToTrader: s.traderShare - s.traderPaid };
    },
    permitTypedData: (vault, amount, deadline) => contracts.vaultPermitTypedData(chain.provider, { vault, amount, deadline }),
    fundWithPermit: async (vault, amount, deadline, signature) => ({ txHash: (await recorded(await contracts.fundVaultWithPermit(signer, { vault, amount, deadline, signature }))).txHash }),
  };
}
