// Proposals (funding offers) replace the deprecated escrow contract: terms that both parties sign as
// EIP-712 typed data; once both have signed, the daemon relays VaultFactory.createVault and the
// factory checks both signatures again on-chain.
import { getAddress, verifyTypedData } from "ethers";
import type { Kysely } from "kysely";
import type { Logger } from "pino";
import { buildVaultTermsTypedData, hashVaultTerms, randomSalt, VAULT_TERMS_TYPES, type VaultTerms } from "../chain/terms.js";
import * as repo from "../db/proposals-repo.js";
import type { Database, ProposalRow } from "../db/schema.js";
import { AppError } from "../errors.js";

export const DEFAULT_PROPOSAL_VALIDITY_S = 7 * 86_400;

export interface ProposalTerms {
  investor: string;
  trader: string;
  exchangeAccount?: string;
  /** USDC base units. */
  initialBalance: bigint;
  maxDrawdownBps: number;
  dailyDrawdownBps: number;
  dealDeadline: number;
  traderShareBps: number;
  validUntil?: number;
}

/** What proposals need from the chain, passed in at composition. */
export interface ProposalChain {
  chainId(): number;
  factory(): string;
  /** The active (not closed) vault trading this exchange account, if any. */
  activeVaultFor(exchangeAccount: string): Promise<string | undefined>;
  createVault(terms: VaultTerms, investorSignature: string, traderSignature: string): Promise<{ vault: string; txHash: string }>;
}

const invalid = (field: string, message: string) =>
  new AppError("INVALID_INPUT", `${field}: ${message}`, { details: [{ field: `body.${field}`, message }] });

export function termsOf(row: ProposalRow): VaultTerms {
  return {
    investor: row.investor, trader: row.trader, exchangeAccount: row.exchange_account,
    initialBalance: BigInt(row.initial_balance), maxDrawdownBps: row.max_drawdown_bps,
    dailyDrawdownBps: row.daily_drawdown_bps, dealDeadline: row.deal_deadline,
    traderShareBps: row.trader_share_bps, validUntil: row.valid_until, salt: row.salt,
  };
}

export const typedDataOf = (row: ProposalRow) =>
  buildVaultTermsTypedData({ chainId: row.chain_id, factory: row.factory, terms: termsOf(row) });

export function createProposalService(deps: { db: Kysely<Database>; chain: ProposalChain; clock: () => number; log: Logger }) {
  const { db, chain, clock, log } = deps;
  const nowS = () => Math.floor(clock() / 1000);

  async function load(user: string, id: number): Promise<ProposalRow> {
    let row = await repo.findProposal(db, id);
    if (!row || (row.investor !== user && row.trader !== user)) throw new AppError("NOT_FOUND", `no proposal ${id}`);
    if (row.status === "PENDING" && row.valid_until < nowS()) {
      await repo.updateProposal(db, id, { status: "EXPIRED" }, clock(), "PENDING");
      row = (await repo.findProposal(db, id))!;
    }
    return row;
  }

  async function relay(row: ProposalRow): Promise<ProposalRow> {
    if (await chain.activeVaultFor(row.exchange_account)) {
      await repo.updateProposal(db, row.id, { relay_error: "the exchange account already backs an active vault" }, clock());
      return (await repo.findProposal(db, row.id))!;
    }
    try {
      const { vault, txHash } = await chain.createVault(termsOf(row), row.investor_signature!, row.trader_signature!);
      await repo.updateProposal(db, row.id, { status: "ACCEPTED", vault_address: vault, create_tx: txHash, relay_error: null }, clock(), "PENDING");
      log.info({ proposal: row.id, vault, txHash }, "vault deployed");
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      log.warn({ proposal: row.id, err: message }, "createVault relay failed; will retry");
      await repo.updateProposal(db, row.id, { relay_error: message }, clock());
    }
    return (await repo.findProposal(db, row.id))!;
  }

  return {
    load,

    async create(user: string, t: ProposalTerms): Promise<ProposalRow> {
      const investor = getAddress(t.investor);
      const trader = getAddress(t.trader);
      if (investor === trader) throw invalid("trader", "investor and trader must be different wallets");
      if (user !== investor && user !== trader) throw invalid("investor", "you must be the investor or the trader of your proposal");
      const exchangeAccount = getAddress(t.exchangeAccount ?? investor);
      if (t.dealDeadline <= nowS()) throw invalid("dealDeadline", "must be in the future");
      const validUntil = t.validUntil ?? Math.min(t.dealDeadline, nowS() + DEFAULT_PROPOSAL_VALIDITY_S);
      if (validUntil <= nowS()) throw invalid("validUntil", "must be in the future");
      if (validUntil > t.dealDeadline) throw invalid("validUntil", "must not be after the deal deadline");
      if (await chain.activeVaultFor(exchangeAccount)) throw invalid("exchangeAccount", "this exchange account already backs an active vault");
      const terms: VaultTerms = {
        investor, trader, exchangeAccount, initialBalance: t.initialBalance, maxDrawdownBps: t.maxDrawdownBps,
        dailyDrawdownBps: t.dailyDrawdownBps, dealDeadline: t.dealDeadline, traderShareBps: t.traderShareBps,
        validUntil, salt: randomSalt(),
      };
      const typed = buildVaultTermsTypedData({ chainId: chain.chainId(), factory: chain.factory(), terms });
      const now = clock();
      return repo.insertProposal(db, {
        created_by: user, investor, trader, exchange_account: exchangeAccount, initial_balance: t.initialBalance.toString(),
        max_drawdown_bps: t.maxDrawdownBps, daily_drawdown_bps: t.dailyDrawdownBps, deal_deadline: t.dealDeadline,
        trader_share_bps: t.traderShareBps, valid_until: validUntil, salt: terms.salt, chain_id: typed.domain.chainId,
        factory: typed.domain.verifyingContract, terms_hash: hashVaultTerms({ chainId: chain.chainId(), factory: chain.factory(), terms }),
        investor_signature: null, trader_signature: null, status: "PENDING", vault_address: null, create_tx: null,
        relay_error: null, rejected_by: null, created_at: now, updated_at: now,
      });
    },

    async accept(user: string, id: number, signature: string): Promise<ProposalRow> {
      const row = await load(user, id);
      if (row.status !== "PENDING") throw new AppError("CONFLICT", `the proposal is ${row.status}`);
      const typed = typedDataOf(row);
      let signer: string;
      try {
        signer = verifyTypedData(typed.domain, VAULT_TERMS_TYPES, typed.message, signature);
      } catch {
        throw invalid("signature", "cannot be parsed");
      }
      if (signer !== user) throw invalid("signature", "is not your signature over these terms (sign the proposal's typedData)");
      const field = user === row.investor ? "investor_signature" : "trader_signature";
      await repo.updateProposal(db, id, { [field]: signature }, clock(), "PENDING");
      const updated = (await repo.findProposal(db, id))!;
      return updated.investor_signature && updated.trader_signature ? relay(updated) : updated;
    },

    async reject(user: string, id: number): Promise<ProposalRow> {
      const row = await load(user, id);
      if (row.status !== "PENDING") throw new AppError("CONFLICT", `the proposal is ${row.status}`);
      await repo.updateProposal(db, id, { status: "REJECTED", rejected_by: user }, clock(), "PENDING");
      return (await repo.findProposal(db, id))!;
    },

    list: (user: string, limit: number, offset: number) => repo.proposalsOf(db, user, limit, offset),

    /** Background upkeep: expire stale proposals and retry relays that failed. */
    async sweep(): Promise<void> {
      await repo.expireProposals(db, nowS(), clock());
      for (const row of await repo.awaitingRelay(db)) await relay(row);
    },
  };
}

export type ProposalService = ReturnType<typeof createProposalService>;
