// POST /exchange: parse, recover the signer, check the nonce, map the signer to an account, then run
// the action in one transaction that also records the nonce. Answers use Hyperliquid's shapes:
// {"status":"ok","response":{...}} or {"status":"err","response":"<message>"}.
import { actingUser, approveAgent, type AgentPolicy } from "./agents.js";
import { cancelByCloid, cancelByOid, modifyOrder } from "./engine/actions.js";
import { scheduleCancel } from "./engine/clock-jobs.js";
import { updateIsolatedMargin, updateLeverage } from "./engine/leverage.js";
import { runTransfer } from "./engine/transfers.js";
import type { EngineCtx } from "./engine/context.js";
import { placeOrderAction } from "./engine/order-batch.js";
import { settleTriggers } from "./engine/triggers.js";
import { nonceError, type NoncePolicy } from "./nonces.js";
import { l1ConnectionId, recoverL1Signer, recoverUserSigner } from "./signing.js";
import type { Network } from "./types.js";
import { parseExchangeRequest, type ExchangeRequest, type L1Action, type UserSignedAction } from "./wire.js";
import { actionWeight, type WeightCounter } from "./weights.js";

export interface ExchangeDeps {
  ctx: EngineCtx;
  network: Network;
  nonces: NoncePolicy;
  agents: AgentPolicy;
  /** Weighs each action against its signer (the venue weighs every request, refused ones too). */
  weights: WeightCounter;
}

type Req<K extends ExchangeRequest["kind"]> = Extract<ExchangeRequest, { kind: K }>;

const err = (response: string) => ({ status: "err", response });
const ok = (response: unknown) => ({ status: "ok", response });
const DEFAULT = ok({ type: "default" });

/** Handles a parsed JSON body; throws WireError for bodies the real API answers with 422. */
export function handleExchange(deps: ExchangeDeps, body: unknown): unknown {
  const req = parseExchangeRequest(body);
  if (req.kind === "refused") {
    deps.weights.count(undefined, req.type, 1);
    return err(`${req.type} is not available on the sim (a paper exchange).`);
  }
  return req.kind === "l1" ? handleL1(deps, req) : handleUserSigned(deps, req);
}

function handleL1(deps: ExchangeDeps, req: Req<"l1">): unknown {
  const { ctx } = deps;
  const now = ctx.now();
  const hash = l1ConnectionId(req.action, req.nonce, req.vaultAddress, req.expiresAfter);
  const signer = recoverL1Signer(hash, deps.network, req.signature);
  deps.weights.count(signer, req.action.type, actionWeight(req.action));
  if (!signer) return err("Invalid signature.");
  const bad = nonceError(ctx.repo.noncesOf(signer), req.nonce, now, deps.nonces);
  if (bad) return err(bad);
  const user = actingUser(ctx.repo, signer, now);
  if (!user) return err(`User or API Wallet ${signer} does not exist.`);
  // Sub-accounts and vaults are not simulated: vaultAddress may only name the account itself.
  if (req.vaultAddress && req.vaultAddress !== user) return err(`Vault or sub-account ${req.vaultAddress} is not registered to ${user}.`);
  if (req.expiresAfter !== undefined && req.expiresAfter < now) return err("Action already expired");
  return ctx.tx(() => {
    ctx.repo.addNonce(signer, req.nonce, deps.nonces.keep);
    countRequest(ctx, user);
    return runL1(ctx, user, req.action, hash);
  });
}

function runL1(ctx: EngineCtx, user: string, action: L1Action, hash: string): unknown {
  switch (action.type) {
    case "order": {
      const statuses = placeOrderAction(ctx, user, action, hash);
      return "error" in statuses ? err(statuses.error) : ok({ type: "order", data: { statuses } });
    }
    case "cancel":
      return ok({ type: "cancel", data: { statuses: cancelByOid(ctx, user, action) } });
    case "cancelByCloid":
      return ok({ type: "cancel", data: { statuses: cancelByCloid(ctx, user, action) } });
    case "updateLeverage": {
      const refused = updateLeverage(ctx, user, action);
      return refused ? err(refused) : DEFAULT;
    }
    case "noop":
      return DEFAULT;
    case "modify": {
      const result = modifyOrder(ctx, user, action, hash);
      settleAllTriggers(ctx);
      return "error" in result ? err(result.error) : DEFAULT;
    }
    case "batchModify": {
      const statuses = action.modifies.map((m) => modifyOrder(ctx, user, m, hash));
      settleAllTriggers(ctx);
      return ok({ type: "order", data: { statuses } });
    }
    case "scheduleCancel": {
      const refused = scheduleCancel(ctx, user, action.time);
      return refused ? err(refused) : DEFAULT;
    }
    case "updateIsolatedMargin": {
      const refused = updateIsolatedMargin(ctx, user, action);
      return refused ? err(refused) : DEFAULT;
    }
  }
}

/** A modified trigger order the mark has already crossed fires now, as a new one would. */
function settleAllTriggers(ctx: EngineCtx): void {
  for (const m of ctx.markets.all) settleTriggers(ctx, m);
}

/** userRateLimit's nRequestsUsed. */
function countRequest(ctx: EngineCtx, user: string): void {
  ctx.repo.setMeta(`requests:${user}`, String(Number(ctx.repo.getMeta(`requests:${user}`) ?? 0) + 1));
}

function handleUserSigned(deps: ExchangeDeps, req: Req<"user">): unknown {
  const { ctx } = deps;
  const now = ctx.now();
  const signer = recoverSigner(req.action, req.signature);
  deps.weights.count(signer, req.action.type, 1);
  if (!signer) return err("Invalid signature.");
  const bad = nonceError(ctx.repo.noncesOf(signer), req.nonce, now, deps.nonces);
  if (bad) return err(bad);
  if (req.action.nonce !== req.nonce) return err("Nonce mismatch.");
  if (req.action.hyperliquidChain !== deps.network) {
    return err(`Invalid hyperliquidChain ${req.action.hyperliquidChain}: this is ${deps.network}.`);
  }
  // Only a funded master may sign user-signed actions; an agent has no account of its own.
  const agent = ctx.repo.getAgent(signer);
  if (agent && agent.validUntil > now && req.action.type !== "approveAgent") {
    return err("Agents do not have permission to perform withdrawals");
  }
  if (!ctx.repo.getAccount(signer)) return err(`Must deposit before performing actions. User: ${signer}`);
  const action = req.action;
  return ctx.tx(() => {
    ctx.repo.addNonce(signer, req.nonce, deps.nonces.keep);
    if (action.type !== "approveAgent") {
      const result = runTransfer(ctx, signer, action, l1ConnectionId(action.message, req.nonce));
      return "error" in result ? err(result.error) : DEFAULT;
    }
    const refused = approveAgent(ctx.repo, signer, action, now, deps.agents);
    return refused ? err(refused) : DEFAULT;
  });
}

function recoverSigner(action: UserSignedAction, signature: Req<"user">["signature"]): string | undefined {
  if (action.type !== "approveAgent") {
    return recoverUserSigner(action.primaryType, action.signatureChainId, action.message, signature);
  }
  const message = {
    hyperliquidChain: action.hyperliquidChain,
    agentAddress: action.agentAddress,
    agentName: action.agentName ?? "", // signed as "" when unnamed, posted as null or omitted
    nonce: action.nonce,
  };
  return recoverUserSigner("HyperliquidTransaction:ApproveAgent", action.signatureChainId, message, signature);
}
