// Parsing /exchange bodies into typed actions in Hyperliquid's canonical form. Like the real server,
// the sim never hashes the client's bytes: it parses the action, normalizes decimals (trailing zeros
// stripped) and hex (lowercase), and rebuilds each object in the exchange's field order, so a client
// that signed a non-canonical form recovers to a different address.
import { z } from "zod";
import { canonicalDecimal } from "../lib/decimal.js";
import type { Tif } from "./types.js";

const lower = (s: string) => s.toLowerCase();
const Hex = z.string().regex(/^0[xX][0-9a-fA-F]+$/).transform(lower);
const Address = z.string().regex(/^0[xX][0-9a-fA-F]{40}$/).transform(lower);
const Cloid = z.string().regex(/^0[xX][0-9a-fA-F]{32}$/).transform(lower);
const Dec = z.string().regex(/^\d+(\.\d+)?$/).transform(canonicalDecimal);
const UInt = z.int().nonnegative();

export type OrderType =
  | { limit: { tif: Tif } }
  | { trigger: { isMarket: boolean; triggerPx: string; tpsl: "tp" | "sl" } };

export interface OrderWire { a: number; b: boolean; p: string; s: string; r: boolean; t: OrderType; c?: string }
export interface OrderAction {
  type: "order";
  orders: OrderWire[];
  grouping: "na" | "normalTpsl" | "positionTpsl";
  builder?: { b: string; f: number };
}
export interface CancelAction { type: "cancel"; cancels: { a: number; o: number }[] }
export interface CancelByCloidAction { type: "cancelByCloid"; cancels: { asset: number; cloid: string }[] }
export interface NoopAction { type: "noop" }
export interface UpdateLeverageAction { type: "updateLeverage"; asset: number; isCross: boolean; leverage: number }
export interface ModifyWire { oid: number | string; order: OrderWire }
export interface ModifyAction { type: "modify"; oid: number | string; order: OrderWire }
export interface BatchModifyAction { type: "batchModify"; modifies: ModifyWire[] }
export interface ScheduleCancelAction { type: "scheduleCancel"; time?: number }
export interface UpdateIsolatedMarginAction { type: "updateIsolatedMargin"; asset: number; isBuy: boolean; ntli: number }
export type L1Action =
  | OrderAction | CancelAction | CancelByCloidAction | NoopAction | UpdateLeverageAction | ModifyAction
  | BatchModifyAction | ScheduleCancelAction | UpdateIsolatedMarginAction;

export interface ApproveAgentAction {
  type: "approveAgent";
  signatureChainId: string;
  hyperliquidChain: "Mainnet" | "Testnet";
  agentAddress: string;
  agentName: string | null;
  nonce: number;
}
/** Transfers the venue signs as user-signed actions: the typed fields, in their EIP-712 order. */
export interface TransferAction {
  type: "usdClassTransfer" | "withdraw3" | "usdSend" | "spotSend";
  signatureChainId: string;
  hyperliquidChain: "Mainnet" | "Testnet";
  primaryType: string;
  message: Record<string, unknown>;
  nonce: number;
}
export type UserSignedAction = ApproveAgentAction | TransferAction;

export interface WireSignature { r: string; s: string; v: number }

export type ExchangeRequest =
  | { kind: "l1"; action: L1Action; nonce: number; signature: WireSignature; vaultAddress?: string; expiresAfter?: number }
  | { kind: "user"; action: UserSignedAction; nonce: number; signature: WireSignature }
  | { kind: "refused"; type: string };

const OrderTypeSchema = z.union([
  z.object({ limit: z.object({ tif: z.enum(["Gtc", "Ioc", "Alo", "FrontendMarket"]) }) }),
  z.object({ trigger: z.object({ isMarket: z.boolean(), triggerPx: Dec, tpsl: z.enum(["tp", "sl"]) }) }),
]);

const OrderWireSchema = z
  .object({ a: UInt, b: z.boolean(), p: Dec, s: Dec, r: z.boolean(), t: OrderTypeSchema, c: Cloid.nullish() })
  .transform((o): OrderWire => {
    const t: OrderType = "limit" in o.t
      ? { limit: { tif: o.t.limit.tif } }
      : { trigger: { isMarket: o.t.trigger.isMarket, triggerPx: o.t.trigger.triggerPx, tpsl: o.t.trigger.tpsl } };
    const wire: OrderWire = { a: o.a, b: o.b, p: o.p, s: o.s, r: o.r, t };
    if (o.c) wire.c = o.c;
    return wire;
  });

const L1_SCHEMAS = {
  order: z
    .object({
      orders: z.array(OrderWireSchema).min(1),
      grouping: z.enum(["na", "normalTpsl", "positionTpsl"]).default("na"),
      builder: z.object({ b: Address, f: UInt }).nullish(),
    })
    .transform((a): OrderAction => {
      const action: OrderAction = { type: "order", orders: a.orders, grouping: a.grouping };
      if (a.builder) action.builder = { b: a.builder.b, f: a.builder.f };
      return action;
    }),
  cancel: z
    .object({ cancels: z.array(z.object({ a: UInt, o: UInt })).min(1) })
    .transform((a): CancelAction => ({ type: "cancel", cancels: a.cancels.map((c) => ({ a: c.a, o: c.o })) })),
  cancelByCloid: z
    .object({ cancels: z.array(z.object({ asset: UInt, cloid: Cloid })).min(1) })
    .transform((a): CancelByCloidAction => ({
      type: "cancelByCloid",
      cancels: a.cancels.map((c) => ({ asset: c.asset, cloid: c.cloid })),
    })),
  noop: z.object({}).transform((): NoopAction => ({ type: "noop" })),
  updateLeverage: z
    .object({ asset: UInt, isCross: z.boolean(), leverage: UInt })
    .transform((a): UpdateLeverageAction => ({
      type: "updateLeverage", asset: a.asset, isCross: a.isCross, leverage: a.leverage,
    })),
  modify: z
    .object({ oid: z.union([UInt, Cloid]), order: OrderWireSchema })
    .transform((a): ModifyAction => ({ type: "modify", oid: a.oid, order: a.order })),
  batchModify: z
    .object({ modifies: z.array(z.object({ oid: z.union([UInt, Cloid]), order: OrderWireSchema })).min(1) })
    .transform((a): BatchModifyAction => ({ type: "batchModify", modifies: a.modifies.map((m) => ({ oid: m.oid, order: m.order })) })),
  scheduleCancel: z
    .object({ time: UInt.nullish() })
    .transform((a): ScheduleCancelAction => (a.time == null ? { type: "scheduleCancel" } : { type: "scheduleCancel", time: a.time })),
  updateIsolatedMargin: z
    .object({ asset: UInt, isBuy: z.boolean(), ntli: z.int() })
    .transform((a): UpdateIsolatedMarginAction => ({ type: "updateIsolatedMargin", asset: a.asset, isBuy: a.isBuy, ntli: a.ntli })),
};

/** L1 actions the venue knows and a paper exchange does not offer (answered with a JSON refusal). */
const REFUSED_L1 = new Set([
  "twapOrder", "twapCancel", "createSubAccount", "subAccountTransfer", "subAccountSpotTransfer", "subAccountModify",
  "vaultTransfer", "createVault", "vaultModify", "vaultDistribute", "setReferrer", "registerReferrer",
  "reserveRequestWeight", "evmUserModify", "topUpIsolatedOnlyMargin", "agentSetAbstraction",
  "agentEnableDexAbstraction", "setDisplayName", "claimRewards", "spotUser", "convertToMultiSigUser",
  "borrowLend", "perpDeploy", "spotDeploy", "cSignerAction", "cValidatorAction", "validatorL1Stream",
]);
/** User-signed actions the venue knows and the sim refuses without reading them further. */
const REFUSED_USER = new Set([
  "approveBuilderFee", "sendAsset", "tokenDelegate", "cDeposit", "cWithdraw", "userDexAbstraction",
  "userSetAbstraction", "userPortfolioMargin", "sendToEvmWithData", "linkStakingUser",
]);

const Chain = z.enum(["Mainnet", "Testnet"]);
const Str = z.string();
const TRANSFERS = {
  usdClassTransfer: { primaryType: "HyperliquidTransaction:UsdClassTransfer", nonceField: "nonce", shape: { amount: Str, toPerp: z.boolean(), nonce: UInt } },
  withdraw3: { primaryType: "HyperliquidTransaction:Withdraw", nonceField: "time", shape: { destination: Str, amount: Str, time: UInt } },
  usdSend: { primaryType: "HyperliquidTransaction:UsdSend", nonceField: "time", shape: { destination: Str, amount: Str, time: UInt } },
  spotSend: { primaryType: "HyperliquidTransaction:SpotSend", nonceField: "time", shape: { destination: Str, token: Str, amount: Str, time: UInt } },
} as const;

function parseTransfer(type: keyof typeof TRANSFERS, action: unknown): TransferAction {
  const spec = TRANSFERS[type];
  const parsed = z.object({ signatureChainId: Hex, hyperliquidChain: Chain, ...spec.shape }).safeParse(action);
  if (!parsed.success) throw new WireError(parsed.error.message);
  const { signatureChainId, hyperliquidChain, ...fields } = parsed.data as Record<string, unknown> & { signatureChainId: string; hyperliquidChain: "Mainnet" | "Testnet" };
  return {
    type, signatureChainId, hyperliquidChain, primaryType: spec.primaryType,
    message: { hyperliquidChain, ...fields }, nonce: fields[spec.nonceField] as number,
  };
}

const ApproveAgentSchema = z
  .object({
    signatureChainId: Hex,
    hyperliquidChain: z.enum(["Mainnet", "Testnet"]),
    agentAddress: Address,
    agentName: z.string().nullish(),
    nonce: UInt,
  })
  .transform((a): ApproveAgentAction => ({
    type: "approveAgent",
    signatureChainId: a.signatureChainId,
    hyperliquidChain: a.hyperliquidChain,
    agentAddress: a.agentAddress,
    agentName: a.agentName ?? null,
    nonce: a.nonce,
  }));

const EnvelopeSchema = z.object({
  action: z.looseObject({ type: z.string() }),
  nonce: UInt,
  signature: z.object({ r: Hex, s: Hex, v: z.int() }),
  vaultAddress: Address.nullish(),
  expiresAfter: UInt.nullish(),
});

/** Thrown for bodies the real API would answer with HTTP 422. */
export class WireError extends Error {}

export function parseExchangeRequest(body: unknown): ExchangeRequest {
  const env = EnvelopeSchema.safeParse(body);
  if (!env.success) throw new WireError(env.error.message);
  const { action, nonce, signature } = env.data;
  if (REFUSED_L1.has(action.type) || REFUSED_USER.has(action.type)) return { kind: "refused", type: action.type };
  if (Object.hasOwn(TRANSFERS, action.type)) {
    return { kind: "user", action: parseTransfer(action.type as keyof typeof TRANSFERS, action), nonce, signature };
  }
  if (action.type === "approveAgent") {
    const parsed = ApproveAgentSchema.safeParse(action);
    if (!parsed.success) throw new WireError(parsed.error.message);
    return { kind: "user", action: parsed.data, nonce, signature };
  }
  const schema = L1_SCHEMAS[action.type as keyof typeof L1_SCHEMAS];
  if (!schema || !Object.hasOwn(L1_SCHEMAS, action.type)) throw new WireError(`unknown action type ${action.type}`);
  const parsed = schema.safeParse(action);
  if (!parsed.success) throw new WireError(parsed.error.message);
  return {
    kind: "l1",
    action: parsed.data,
    nonce,
    signature,
    ...(env.data.vaultAddress ? { vaultAddress: env.data.vaultAddress } : {}),
    ...(env.data.expiresAfter != null ? { expiresAfter: env.data.expiresAfter } : {}),
  };
}
