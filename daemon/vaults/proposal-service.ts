// Proposals (funding offers) replace the deprecated escrow contract: terms that both parties sign as
// EIP-712 typed data; once both have signed, the daemon relays VaultFactory.createVault and the
// factory checks both signatures again on-chain. Terms the contract would refuse are refused here,
// before anyone signs; a relay that fails for good (the contract reverts) marks the proposal FAILED.
import { getAddress, verifyTypedData } from "ethers";
import type { Logger } from "pino";
import { buildVaultTermsTypedData, hashVaultTerms, randomSalt, senselessTerms, termsProblems, VAULT_TERMS_TYPES, type VaultTerms } from "../chain/terms.js";
import type { Executor, UnitOfWork } from "../db/store.js";
import * as repo from "../db/proposals-repo.js";
import type { ProposalRow } from "../db/schema.js";
import type { UserNotices } from "../notices/user-notices.js";
import { AppError, isAppError } from "../errors.js";
import { compareDecimal } from "../lib/decimal.js";
import { isRetryable } from "../lib/retry.js";
import { breachPolicyName } from "./breach-policies.js";
import { baseUnitsToUsdc, bpsToPercent } from "./units.js";

export const DEFAULT_PROPOSAL_VALIDITY_S = 7 * 86_400;

/** The terms a proposal starts from (VaultTerms less what the daemon fills in): the exchange account defaults to the investor's, the validity to a week or the deadline, the salt is drawn. */
export type ProposalTerms = Omit<VaultTerms, "exchangeAccount" | "validUntil" | "salt"> & Partial<Pick<VaultTerms, "exchangeAccount" | "validUntil">>;

/** What proposals need from below, passed in at composition. */
export interface ProposalDeps {
  db: Executor;
  work: UnitOfWork;
  /** Where a signature is told to the party who has not signed yet (ProposalSigned). */
  notices: UserNotices;
  chainId(): number;
  factory(): string;
  /** The active (not closed) vault trading this exchange account, if any. */
  activeVaultFor(exchangeAccount: string): Promise<string | undefined>;
  createVault(terms: VaultTerms, investorSignature: string, traderSignature: string): Promise<{ vault: string; txHash: string }>;
  /** The exchange account's value (USDC decimal string), for the warnings shown before anyone signs; read as `caller` asked. */
  accountValue(exchangeAccount: string, caller: string): Promise<string>;
  /** Runs `fn` while no other daemon on the database runs one under the same name (the store's lock). */
  exclusive<T>(name: string, fn: () => Promise<T>): Promise<T>;
  /** Refuses (INVALID_INPUT) an exchange account in a mode the oracle cannot value (account-modes.ts); read as `caller` asked. */
  assertAccountValued(exchangeAccount: string, caller: string): Promise<void>;
  /** A vault just deployed gets its first reading at once, so it can trade without waiting a cycle. */
  firstReading(vault: string): Promise<unknown>;
  clock: () => number;
  log: Logger;
}

export interface ProposalWarning {
  code: "BALANCE_ABOVE_ACCOUNT";
  message: string;
}

const invalid = (field: string, message: string) =>
  new AppError("INVALID_INPUT", `${field}: ${message}`, { details: [{ field: `body.${field}`, message }] });

export function termsOf(row: ProposalRow): VaultTerms {
  return {
    investor: row.investor, trader: row.trader, exchangeAccount: row.exchange_account,
    initialBalance: BigInt(row.initial_balance), maxDrawdownBps: row.max_drawdown_bps,
    dailyDrawdownBps: row.daily_drawdown_bps, dealDeadline: row.deal_deadline,
    traderShareBps: row.trader_share_bps, breachPolicy: row.breach_policy, validUntil: row.valid_until, salt: row.salt,
  };
}

export const typedDataOf = (row: ProposalRow) =>
  buildVaultTermsTypedData({ chainId: row.chain_id, factory: row.factory, terms: termsOf(row) });

/** A proposal as the API shows it: SPEC's units (percentages, USDC decimal strings, Unix seconds). */
export function rowToProposal(p: ProposalRow) {
  return {
    id: p.id, status: p.status, investor: p.investor, trader: p.trader, exchangeAccount: p.exchange_account,
    initialBalance: baseUnitsToUsdc(p.initial_balance),
    maxDrawdown: bpsToPercent(p.max_drawdown_bps), dailyDrawdown: bpsToPercent(p.daily_drawdown_bps),
    dealDeadline: p.deal_deadline,
    profitShare: { trader: bpsToPercent(p.trader_share_bps), investor: bpsToPercent(10_000 - p.trader_share_bps) },
    breachPolicy: breachPolicyName(p.breach_policy),
    validUntil: p.valid_until,
    signedBy: { investor: p.investor_signature !== null, trader: p.trader_signature !== null },
    vaultAddress: p.vault_address, createTx: p.create_tx, relayError: p.relay_error, rejectedBy: p.rejected_by,
    createdBy: p.created_by, createdAt: Math.floor(p.created_at / 1000),
    typedData: typedDataOf(p),
  };
}
export type Proposal = ReturnType<typeof rowToProposal>;

export function createProposalService(deps: ProposalDeps) {
  const { db, clock, log } = deps;
  const nowS = () => Math.floor(clock() / 1000);
  /** Relays in progress, per proposal: accept and the background sweep never relay one twice at once. */
  const relaying = new Map<number, Promise<ProposalRow>>();

  async function load(user: string, id: number): Promise<ProposalRow> {
    let row = await repo.findProposal(db, id);
    if (!row || (row.investor !== user && row.trader !== user)) throw new AppError("NOT_FOUND", `no proposal ${id}`);
    if (row.status === "PENDING" && row.valid_until < nowS()) {
      await repo.updateProposal(db, id, { status: "EXPIRED" }, clock(), "PENDING");
      row = (await repo.findProposal(db, id))!;
    }
    return row;
  }

  async function relayOnce(row: ProposalRow): Promise<ProposalRow> {
    if (await deps.activeVaultFor(row.exchange_account)) {
      await repo.updateProposal(db, row.id, { relay_error: "the exchange account already backs an active vault" }, clock(), "PENDING");
      return (await repo.findProposal(db, row.id))!;
    }
    try {
      const { vault, txHash } = await deps.createVault(termsOf(row), row.investor_signature!, row.trader_signature!);
      await repo.updateProposal(db, row.id, { status: "ACCEPTED", vault_address: vault, create_tx: txHash, relay_error: null }, clock(), "PENDING");
      log.info({ proposal: row.id, vault, txHash }, "vault deployed");
      await deps.firstReading(vault).catch((err) => log.warn({ vault, err: (err as Error).message }, "first reading failed; the oracle retries"));
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      // A chain that did not answer is worth another try; a contract that said no will say it again.
      const forGood = !isRetryable(err);
      log.warn({ proposal: row.id, err: message, forGood }, forGood ? "createVault refused; the proposal failed" : "createVault relay failed; will retry");
      await repo.updateProposal(db, row.id, { relay_error: message, ...(forGood ? { status: "FAILED" as const } : {}) }, clock(), "PENDING");
    }
    return (await repo.findProposal(db, row.id))!;
  }

  /**
   * ProposalSigned to the party who has not signed yet, in the signature's transaction. Once both
   * have signed there is nothing to ask of anyone: the vault's deployment (VaultCreated) tells both.
   */
  async function tellOtherParty(trx: Executor, p: ProposalRow, signer: string): Promise<void> {
    const signerIsInvestor = signer === p.investor;
    if (signerIsInvestor ? p.trader_signature !== null : p.investor_signature !== null) return;
    await deps.notices.notifyParty(trx, {
      user: signerIsInvestor ? p.trader : p.investor, type: "ProposalSigned", key: `ProposalSigned:${p.id}:${signer}`,
      data: {
        proposal: p.id, signedBy: signer, role: signerIsInvestor ? "investor" : "trader", investor: p.investor, trader: p.trader,
        initialBalance: baseUnitsToUsdc(p.initial_balance), dealDeadline: p.deal_deadline, validUntil: p.valid_until,
      },
    });
  }

  function relay(row: ProposalRow): Promise<ProposalRow> {
    const running = relaying.get(row.id);
    if (running) return running;
    // Once across daemons sharing the database too (another's sweep, another's accept): under the
    // store's lock the proposal is read again, and one deployed meanwhile is not relayed twice.
    const p = deps.exclusive(`proposal:${row.id}`, async () => {
      const now = (await repo.findProposal(db, row.id))!;
      return now.status === "PENDING" && now.vault_address === null ? relayOnce(now) : now;
    }).finally(() => relaying.delete(row.id));
    relaying.set(row.id, p);
    return p;
  }

  return {
    load,

    /**
     * What both parties should know before signing: the exchange account holds less than the initial
     * balance. Left out when the account cannot be read, the caller's read budget spent included (the
     * proposal itself is the answer; a creation must not fail after its row was stored).
     */
    async warnings(row: ProposalRow, caller: string): Promise<ProposalWarning[]> {
      if (row.status !== "PENDING") return [];
      const value = await deps.accountValue(row.exchange_account, caller).catch(() => undefined);
      const initial = baseUnitsToUsdc(row.initial_balance);
      if (value === undefined || compareDecimal(value, initial) >= 0) return [];
      // The peak starts at initialBalance: a first reading this far below it is already a breach.
      const floor = baseUnitsToUsdc((BigInt(row.initial_balance) * BigInt(10_000 - row.max_drawdown_bps)) / 10_000n);
      const pauses = compareDecimal(value, floor) <= 0;
      return [{
        code: "BALANCE_ABOVE_ACCOUNT",
        message: `the initial balance ${initial} USDC is more than the exchange account ${row.exchange_account} holds (${value} USDC); ` +
          (pauses ? "the vault would pause at its first reading (the max drawdown runs from the initial balance)" : "the first reading will record a mismatch"),
      }];
    },

    async create(user: string, t: ProposalTerms): Promise<ProposalRow> {
      const investor = getAddress(t.investor);
      const trader = getAddress(t.trader);
      if (investor === trader) throw invalid("trader", "investor and trader must be different wallets");
      // What the factory would refuse, refused now: nobody signs terms that can never be deployed; nor
      // terms nobody can mean (a daily limit above the maximum, a deadline decades ahead).
      const exchange = getAddress(t.exchangeAccount ?? investor);
      const proposed = {
        investor, trader, exchangeAccount: exchange, initialBalance: t.initialBalance, maxDrawdownBps: t.maxDrawdownBps,
        dailyDrawdownBps: t.dailyDrawdownBps, dealDeadline: t.dealDeadline, traderShareBps: t.traderShareBps,
        breachPolicy: t.breachPolicy, validUntil: t.validUntil ?? Math.min(t.dealDeadline, nowS() + DEFAULT_PROPOSAL_VALIDITY_S),
      };
      const problems = [...termsProblems(proposed, nowS()), ...senselessTerms(proposed, nowS())];
      if (problems.length > 0) {
        const field = (f: string) => (f === "traderShare" ? "profitShare.trader" : f);
        const first = problems[0]!;
        throw new AppError("INVALID_INPUT", `${field(first.field)}: ${first.message}`, {
          details: problems.map((p) => ({ field: `body.${field(p.field)}`, message: p.message })),
        });
      }
      if (user !== investor && user !== trader) throw invalid("investor", "you must be the investor or the trader of your proposal");
      const exchangeAccount = getAddress(t.exchangeAccount ?? investor);
      if (t.dealDeadline <= nowS()) throw invalid("dealDeadline", "must be in the future");
      const validUntil = t.validUntil ?? Math.min(t.dealDeadline, nowS() + DEFAULT_PROPOSAL_VALIDITY_S);
      if (validUntil <= nowS()) throw invalid("validUntil", "must be in the future");
      if (validUntil > t.dealDeadline) throw invalid("validUntil", "must not be after the deal deadline");
      if (await deps.activeVaultFor(exchangeAccount)) throw invalid("exchangeAccount", "this exchange account already backs an active vault");
      // An exchange that cannot answer does not block the proposal: the oracle reads the mode again
      // at the vault's first cycle and pauses it if the account cannot be valued.
      await deps.assertAccountValued(exchangeAccount, user).catch((err) => {
        if (isAppError(err) && err.code === "INVALID_INPUT") throw err;
        log.warn({ exchangeAccount, err: (err as Error).message }, "cannot read the account's mode; the oracle will");
      });
      const terms: VaultTerms = {
        investor, trader, exchangeAccount, initialBalance: t.initialBalance, maxDrawdownBps: t.maxDrawdownBps,
        dailyDrawdownBps: t.dailyDrawdownBps, dealDeadline: t.dealDeadline, traderShareBps: t.traderShareBps,
        breachPolicy: t.breachPolicy, validUntil, salt: randomSalt(),
      };
      const typed = buildVaultTermsTypedData({ chainId: deps.chainId(), factory: deps.factory(), terms });
      const now = clock();
      return repo.insertProposal(db, {
        created_by: user, investor, trader, exchange_account: exchangeAccount, initial_balance: t.initialBalance.toString(),
        max_drawdown_bps: t.maxDrawdownBps, daily_drawdown_bps: t.dailyDrawdownBps, deal_deadline: t.dealDeadline,
        trader_share_bps: t.traderShareBps, breach_policy: t.breachPolicy, valid_until: validUntil, salt: terms.salt, chain_id: typed.domain.chainId,
        factory: typed.domain.verifyingContract, terms_hash: hashVaultTerms({ chainId: deps.chainId(), factory: deps.factory(), terms }),
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
      const updated = await deps.work.write(async (trx) => {
        const field = user === row.investor ? "investor_signature" : "trader_signature";
        if (!(await repo.updateProposal(trx, id, { [field]: signature }, clock(), "PENDING"))) {
          throw new AppError("CONFLICT", "the proposal changed meanwhile; fetch it again");
        }
        const signed = (await repo.findProposal(trx, id))!;
        await tellOtherParty(trx, signed, user);
        return signed;
      });
      return updated.investor_signature && updated.trader_signature ? relay(updated) : updated;
    },

    async reject(user: string, id: number): Promise<ProposalRow> {
      const row = await load(user, id);
      if (row.status !== "PENDING") throw new AppError("CONFLICT", `the proposal is ${row.status}`);
      if (row.investor_signature && row.trader_signature) throw new AppError("CONFLICT", "both parties have signed; the vault is being deployed");
      if (!(await repo.updateProposal(db, id, { status: "REJECTED", rejected_by: user }, clock(), "PENDING"))) {
        const now = (await repo.findProposal(db, id))!;
        throw new AppError("CONFLICT", `the proposal is ${now.status}`);
      }
      return (await repo.findProposal(db, id))!;
    },

    list: (user: string, limit: number, offset: number) => repo.proposalsOf(db, user, limit, offset),

    /** Background upkeep: expire stale proposals and retry relays that failed for a passing reason. */
    async sweep(): Promise<void> {
      await repo.expireProposals(db, nowS(), clock());
      for (const row of await repo.awaitingRelay(db)) await relay(row);
    },
  };
}

export type ProposalService = ReturnType<typeof createProposalService>;
