// Agent keys (DESIGN section 3): one per exchange account, generated here, sealed at rest. The user
// approves it with the master key; the daemon relays. Agents expire and are rotated before they do,
// and an address is never reused.
import { Wallet, hexlify, randomBytes } from "ethers";
import * as repo from "../db/agents-repo.js";
import type { Executor } from "../db/store.js";
import type { AgentRow } from "../db/schema.js";
import { AppError } from "../errors.js";
import type { ExchangeAdapter, Signer } from "../exchange/types.js";
import type { UserReads } from "../exchange/user-reads.js";
import type { SecretBox } from "../lib/secret-box.js";
import { agentValidUntil, approvalSigner, approvalTypedData, signedApproval, type ApprovalParams } from "./agent-approval.js";

/** A new agent is proposed this long before the current one expires. */
export const ROTATE_BEFORE_MS = 7 * 86_400_000;
/** Hyperliquid accepts nonces within about a day of its clock. */
const NONCE_WINDOW_MS = 86_400_000;

export interface AgentStatus {
  agentAddress: string;
  approved: boolean;
  validUntil: number | null;
  approval?: { nonce: number; typedData: ReturnType<typeof approvalTypedData> };
}

export interface AgentService {
  status(account: string, opts?: { signatureChainId?: string }): Promise<AgentStatus>;
  approve(account: string, input: { nonce: number; signature: string; signatureChainId?: string }): Promise<AgentStatus>;
  /** The agent to sign with for `account`; AGENT_NOT_APPROVED when there is none. */
  signerFor(account: string): Promise<Signer>;
  /** Called when the exchange says it does not know the agent (revoked, pruned or expired). */
  forget(agentAddress: string): Promise<void>;
}

export function createAgentService(deps: {
  db: Executor;
  exchange: ExchangeAdapter;
  /** The approval as the account's user asks for it: kept a few seconds, within the user's budget. */
  reads: UserReads;
  box: SecretBox;
  clock: () => number;
}): AgentService {
  const { db, exchange, box, clock } = deps;
  const hyperliquidChain = exchange.isTestnet ? "Testnet" : "Mainnet";
  const live = (a: AgentRow) => a.approved_at !== null && a.valid_until !== null && a.valid_until > clock();
  const signers = new Map<string, Signer>();
  // The live agent of each account, so an order does not read the agents table: every change to an
  // account's agents goes through this service, which drops the account's entry.
  const liveByAccount = new Map<string, AgentRow>();

  async function current(account: string): Promise<AgentRow> {
    const newest = (await repo.agentsFor(db, account))[0];
    const needsNew = !newest || (live(newest) && newest.valid_until! - clock() < ROTATE_BEFORE_MS) ||
      (newest.valid_until !== null && newest.valid_until <= clock());
    if (!needsNew) return newest;
    const wallet = new Wallet(hexlify(randomBytes(32))); // a key, not a mnemonic wallet (its PBKDF2 costs ~100 ms)
    const row: AgentRow = {
      address: wallet.address, account, sealed_key: box.seal(wallet.privateKey), created_at: clock(), approved_at: null, valid_until: null,
    };
    await repo.insertAgent(db, row);
    liveByAccount.delete(account);
    return row;
  }

  const params = (agent: AgentRow, nonce: number, signatureChainId?: string): ApprovalParams => ({
    agentAddress: agent.address, nonce, hyperliquidChain, signatureChainId,
  });

  async function status(account: string, opts: { signatureChainId?: string } = {}): Promise<AgentStatus> {
    const agent = await current(account);
    const onExchange = (await deps.reads.as(account).approvedAgents(account)).find(
      (a) => a.address.toLowerCase() === agent.address.toLowerCase() && (a.validUntil === null || a.validUntil > clock()),
    );
    if (onExchange && !live(agent)) await repo.markApproved(db, agent.address, clock(), onExchange.validUntil);
    if (!onExchange && agent.approved_at !== null) await repo.markUnapproved(db, agent.address);
    liveByAccount.delete(account);
    if (onExchange) return { agentAddress: agent.address, approved: true, validUntil: onExchange.validUntil };
    const nonce = clock();
    return {
      agentAddress: agent.address,
      approved: false,
      validUntil: null,
      approval: { nonce, typedData: approvalTypedData(params(agent, nonce, opts.signatureChainId)) },
    };
  }

  return {
    status,

    async approve(account, input) {
      if (Math.abs(input.nonce - clock()) > NONCE_WINDOW_MS) {
        throw new AppError("INVALID_INPUT", "the approval nonce is too old; take a fresh approval and sign it", {
          details: [{ field: "body.nonce", message: "must be within a day of now" }],
          next: [{ action: "approveAgent" }],
        });
      }
      const agent = await current(account);
      const p = params(agent, input.nonce, input.signatureChainId);
      let signer: string;
      try {
        signer = approvalSigner(p, input.signature);
      } catch {
        throw new AppError("INVALID_INPUT", "the signature is malformed", { details: [{ field: "body.signature", message: "cannot be parsed" }] });
      }
      if (signer.toLowerCase() !== account.toLowerCase()) {
        throw new AppError("FORBIDDEN", "the approval was not signed by your wallet over this agent and nonce");
      }
      await exchange.relayUserAction(signedApproval(p, input.signature)).finally(() => deps.reads.forget(account));
      await repo.markApproved(db, agent.address, clock(), agentValidUntil(input.nonce));
      liveByAccount.delete(account);
      return { agentAddress: agent.address, approved: true, validUntil: agentValidUntil(input.nonce) };
    },

    async signerFor(account) {
      let agent = liveByAccount.get(account);
      if (!agent || !live(agent)) {
        agent = (await repo.agentsFor(db, account)).find(live);
        if (agent) liveByAccount.set(account, agent);
        else liveByAccount.delete(account);
      }
      if (!agent) {
        throw new AppError("AGENT_NOT_APPROVED", "no approved agent for this account", {
          details: { hint: "the account's wallet approves an agent once" },
          next: [{ action: "approveAgent" }],
        });
      }
      let signer = signers.get(agent.address);
      if (!signer) {
        signer = new Wallet(box.open(agent.sealed_key));
        signers.set(agent.address, signer);
      }
      return signer;
    },

    async forget(agentAddress) {
      signers.delete(agentAddress);
      await repo.markUnapproved(db, agentAddress);
      for (const [account, a] of liveByAccount) if (a.address === agentAddress) liveByAccount.delete(account);
    },
  };
}
