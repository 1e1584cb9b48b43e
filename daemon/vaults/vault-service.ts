// Vault actions and the trade gate (SPEC 3.1, 4.10-4.15, DESIGN section 7). Rules live here; the
// contract enforces the objective ones again (recovery, closed state, who gets paid).
import type { Kysely } from "kysely";
import type { Logger } from "pino";
import type { Store } from "../db/database.js";
import type { Database } from "../db/schema.js";
import type { VaultRow } from "../db/schema-chain.js";
import * as tradesRepo from "../db/vault-trades-repo.js";
import * as vaultsRepo from "../db/vaults-repo.js";
import { AppError } from "../errors.js";
import type { Oracle } from "../oracle/oracle.js";
import type { TradingService } from "../trading/trading-service.js";
import type { VaultGate } from "../trading/vault-gate.js";
import { vaultFor, vaultWithRole } from "./vault-access.js";
import type { VaultChainOps } from "./vault-chain.js";
import { assess } from "./vault-math.js";

export interface VaultServiceDeps {
  store: Store;
  chain: VaultChainOps;
  oracle: Oracle;
  trading: TradingService;
  clock: () => number;
  log: Logger;
  staleAfterMs: number;
}

const nowS = (clock: () => number) => Math.floor(clock() / 1000);

export function createVaultService(deps: VaultServiceDeps) {
  const { store, chain, oracle, trading, clock, log } = deps;
  const db: Kysely<Database> = store.db;
  // Each party's list, kept until the database changes: a dashboard polls it, and between oracle
  // cycles nothing in it moves. The same array is returned while valid, so callers may memoize on it.
  const lists = new Map<string, { changes: number; rows: readonly vaultsRepo.VaultSummaryRow[] }>();
  const MAX_CACHED_LISTS = 1_000;

  function assertOpen(v: VaultRow) {
    if (v.closed) throw new AppError("VAULT_CLOSED", "the vault is closed");
  }

  /** Cancels orders, flattens positions, writes the final balance, closes on-chain. */
  async function settle(v: VaultRow, by: string): Promise<VaultRow> {
    // flatten reads the open orders and positions itself, and does nothing when there are none.
    await trading.flatten(by, { account: v.exchange_account }, v.address, { closePositions: true });
    await oracle.refresh(v.address);
    await chain.closeVault(v.address);
    const closed = (await vaultsRepo.findVault(db, v.address))!;
    await oracle.ingestFills(closed).catch((err) => log.warn({ vault: v.address, err: (err as Error).message }, "cannot read the closing fills"));
    log.info({ vault: v.address, by, finalBalance: closed.final_balance, profit: closed.profit }, "vault closed");
    return closed;
  }

  const gate: VaultGate = {
    async forTrade(user, address) {
      const { vault: v, role } = await vaultFor(db, user, address);
      if (role !== "trader") throw new AppError("FORBIDDEN", "only the vault's trader may trade it");
      assertOpen(v);
      if (v.paused) throw new AppError("VAULT_PAUSED", "the vault was paused by its risk limits");
      if (v.deal_deadline < nowS(clock)) throw new AppError("DEAL_EXPIRED", "the deal deadline has passed");
      const age = clock() - (v.last_observed_at ?? 0) * 1000;
      if (v.last_observed_at === null || age > deps.staleAfterMs) {
        throw new AppError("BALANCE_STALE", "the vault's balance is too old to trade on; the oracle will refresh it", {
          retryAfter: 10, details: { lastBalanceUpdate: v.last_observed_at },
        });
      }
      // Close the gap between oracle cycles: a breach already visible on the exchange pauses now.
      const reading = await oracle.reader.read(v, { priority: "trading" });
      const risk = assess(
        { peak: BigInt(v.peak_balance), dayStart: BigInt(v.day_start_balance), day: Math.floor(v.last_observed_at / 86_400) },
        reading.balance, reading.observedAt, { maxBps: v.max_drawdown_bps, dailyBps: v.daily_drawdown_bps },
      );
      if (risk.breach) {
        const after = await oracle.refresh(v.address);
        if (after.paused) throw new AppError("VAULT_PAUSED", "the vault's risk limits are breached; it has been paused");
      }
      oracle.markActive(v.address);
      return { account: v.exchange_account };
    },
    async forRead(user, address) {
      const { vault: v } = await vaultFor(db, user, address);
      return { account: v.exchange_account };
    },
  };

  return {
    gate,
    settle,
    get: (user: string, address: string) => vaultFor(db, user, address).then((x) => x.vault),

    /** Vaults where `user` is the investor or the trader, newest first: the columns a list shows. */
    list(user: string): readonly vaultsRepo.VaultSummaryRow[] {
      const changes = store.changes();
      const hit = lists.get(user);
      if (hit && hit.changes === changes) return hit.rows;
      const rows = Object.freeze(vaultsRepo.vaultSummariesOfParty(db, store.sync, user));
      if (lists.size >= MAX_CACHED_LISTS) lists.clear();
      lists.set(user, { changes, rows });
      return rows;
    },

    async trades(user: string, address: string, page: { limit: number; offset: number; startMs?: number; endMs?: number }) {
      const v = (await vaultFor(db, user, address)).vault;
      return tradesRepo.tradePage(db, store.sync, v.address, page);
    },

    async events(user: string, address: string, page: { limit: number; offset: number }) {
      const v = (await vaultFor(db, user, address)).vault;
      return vaultsRepo.vaultEventsPage(db, v.address, page.limit, page.offset);
    },

    /** Events of every vault `user` is a party to with id > afterId, oldest first (an SSE backlog). */
    async eventsAfter(user: string, afterId: number, limit: number) {
      const mine = (await vaultsRepo.vaultsOfParty(db, user)).map((v) => v.address);
      return vaultsRepo.eventsAfter(db, mine, afterId, limit);
    },

    /** The latest trades of a vault the caller may read (for its detail view). */
    latestTrades(vault: VaultRow, limit: number) {
      return tradesRepo.tradePage(db, store.sync, vault.address, { limit, offset: 0 }).rows;
    },

    async close(user: string, address: string) {
      const { vault: v } = await vaultFor(db, user, address);
      assertOpen(v);
      return settle(v, user);
    },

    async unpause(user: string, address: string) {
      const { vault: v } = await vaultWithRole(db, user, address, ["trader"], "unpause it");
      assertOpen(v);
      if (!v.paused) throw new AppError("CONFLICT", "the vault is not paused");
      const fresh = await oracle.refresh(v.address);
      if (!fresh.paused) return fresh;
      await chain.unpauseVault(v.address);
      return (await vaultsRepo.findVault(db, v.address))!;
    },

    async withdraw(user: string, address: string) {
      const { vault: v } = await vaultFor(db, user, address);
      if (!v.closed) throw new AppError("VAULT_NOT_CLOSED", "withdraw after the vault is closed");
      return chain.withdraw(v.address, user);
    },

    async fundPrepare(user: string, address: string, amount: bigint) {
      const { vault: v } = await vaultWithRole(db, user, address, ["investor"], "fund its escrow");
      const deadline = nowS(clock) + 3600;
      return { typedData: await chain.permitTypedData(v.address, amount, deadline), amount, deadline, spender: v.address };
    },

    async fund(user: string, address: string, input: { amount: bigint; deadline: number; signature: string }) {
      const { vault: v } = await vaultWithRole(db, user, address, ["investor"], "fund its escrow");
      if (input.deadline < nowS(clock)) throw new AppError("INVALID_INPUT", "deadline: the permit has expired", { details: [{ field: "body.deadline", message: "in the past" }] });
      return chain.fundWithPermit(v.address, input.amount, input.deadline, input.signature);
    },
  };
}

export type VaultService = ReturnType<typeof createVaultService>;
