// The settlement escrow after a close (DESIGN section 7): the investor funds it, each party withdraws
// its entitlement, and the trader is paid first. The contract decides who gets what; this module says
// where the escrow stands against what the trader is owed, so a party is told what is missing and who
// must fund it instead of a bare "nothing to withdraw".
import type { Logger } from "pino";
import type { Executor } from "../db/store.js";
import type { VaultRow } from "../db/schema-chain.js";
import { AppError, isAppError } from "../errors.js";
import { escrowNotFunded } from "./refusals.js";
import { vaultFor, vaultWithRole } from "./vault-access.js";
import type { EscrowReading, VaultChainOps } from "./vault-chain.js";
import { baseUnitsToUsdc } from "./units.js";

export interface SettlementDeps {
  db: Executor;
  chain: VaultChainOps;
  clock: () => number;
  log: Logger;
}

/** Decimal USDC: what the escrow holds, what the trader is still owed, and what is missing for it. */
export interface EscrowStanding {
  held: string;
  owedToTrader: string;
  toFund: string;
}

const nowS = (clock: () => number) => Math.floor(clock() / 1000);

export function standingOf(r: EscrowReading): EscrowStanding {
  const missing = r.owedToTrader > r.held ? r.owedToTrader - r.held : 0n;
  return { held: baseUnitsToUsdc(r.held), owedToTrader: baseUnitsToUsdc(r.owedToTrader), toFund: baseUnitsToUsdc(missing) };
}

/** The database's projection of the escrow: what the events funded and paid (tokens sent to the vault directly are not in it). */
function fromRow(v: VaultRow): EscrowReading {
  const paid = BigInt(v.paid_trader) + BigInt(v.paid_investor);
  const owed = BigInt(v.trader_share ?? "0") - BigInt(v.paid_trader);
  return { held: BigInt(v.funded_total) - paid, owedToTrader: owed > 0n ? owed : 0n };
}

export function createVaultSettlement(deps: SettlementDeps) {
  const { db, chain, clock, log } = deps;

  /** The contract's figures (it counts every token the vault holds); the database's when the chain cannot be read. */
  async function escrow(v: VaultRow): Promise<EscrowReading> {
    try {
      return await chain.escrow(v.address);
    } catch (err) {
      log.warn({ vault: v.address, err: (err as Error).message }, "cannot read the vault's escrow; using the recorded events");
      return fromRow(v);
    }
  }

  return {
    /** Where the escrow of a closed vault stands against the trader's share. */
    async standing(v: VaultRow): Promise<EscrowStanding> {
      return standingOf(await escrow(v));
    },

    async withdraw(user: string, address: string) {
      const { vault: v, role } = await vaultFor(db, user, address);
      if (!v.closed) throw new AppError("VAULT_NOT_CLOSED", "withdraw after the vault is closed");
      try {
        return await chain.withdraw(v.address, user);
      } catch (err) {
        // The trader is owed its share but the escrow is empty: say so, and who must fund it.
        if (role !== "trader" || !isAppError(err) || err.code !== "NOTHING_TO_WITHDRAW") throw err;
        const r = await escrow(v);
        if (r.owedToTrader === 0n) throw err;
        throw escrowNotFunded(v, standingOf(r));
      }
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

export type VaultSettlement = ReturnType<typeof createVaultSettlement>;
