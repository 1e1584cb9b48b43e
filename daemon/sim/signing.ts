// Signature verification exactly as Hyperliquid does it. L1 actions: keccak256 over msgpack of the
// canonical action + nonce + vault marker (+ expiresAfter), signed as EIP-712 `Agent{source,
// connectionId}` on chain 1337. User-signed actions: EIP-712 `HyperliquidTransaction:<Name>` on the
// chain named by signatureChainId. The signer is recovered, never trusted from the request.
import { createL1ActionHash } from "@nktkas/hyperliquid/signing";
import { Signature, ZeroAddress, verifyTypedData, type TypedDataField } from "ethers";
import type { Network } from "./types.js";
import type { WireSignature } from "./wire.js";

export const L1_DOMAIN = { name: "Exchange", version: "1", chainId: 1337, verifyingContract: ZeroAddress };
export const AGENT_TYPES: Record<string, TypedDataField[]> = {
  Agent: [
    { name: "source", type: "string" },
    { name: "connectionId", type: "bytes32" },
  ],
};

/** EIP-712 field lists of user-signed actions; the order is part of the type hash. */
export const USER_SIGNED_TYPES: Record<string, TypedDataField[]> = {
  "HyperliquidTransaction:ApproveAgent": [
    { name: "hyperliquidChain", type: "string" },
    { name: "agentAddress", type: "address" },
    { name: "agentName", type: "string" },
    { name: "nonce", type: "uint64" },
  ],
  "HyperliquidTransaction:UsdSend": [
    { name: "hyperliquidChain", type: "string" },
    { name: "destination", type: "string" },
    { name: "amount", type: "string" },
    { name: "time", type: "uint64" },
  ],
  "HyperliquidTransaction:Withdraw": [
    { name: "hyperliquidChain", type: "string" },
    { name: "destination", type: "string" },
    { name: "amount", type: "string" },
    { name: "time", type: "uint64" },
  ],
  "HyperliquidTransaction:UsdClassTransfer": [
    { name: "hyperliquidChain", type: "string" },
    { name: "amount", type: "string" },
    { name: "toPerp", type: "bool" },
    { name: "nonce", type: "uint64" },
  ],
  "HyperliquidTransaction:SpotSend": [
    { name: "hyperliquidChain", type: "string" },
    { name: "destination", type: "string" },
    { name: "token", type: "string" },
    { name: "amount", type: "string" },
    { name: "time", type: "uint64" },
  ],
};

export const l1Source = (network: Network): "a" | "b" => (network === "Mainnet" ? "a" : "b");

/** The connectionId an L1 action is signed over (the action must already be canonical). */
export function l1ConnectionId(action: object, nonce: number, vaultAddress?: string, expiresAfter?: number): string {
  return createL1ActionHash({
    action: action as Record<string, unknown>,
    nonce,
    vaultAddress: vaultAddress as `0x${string}` | undefined,
    expiresAfter,
  });
}

const N = 2n ** 256n;

/** Accepts unpadded r/s (Python prints them without leading zeros) and v as 27/28 or 0/1. */
function toSignature(sig: WireSignature): Signature | undefined {
  try {
    const r = BigInt(sig.r);
    const s = BigInt(sig.s);
    if (r >= N || s >= N) return undefined;
    const v = sig.v < 27 ? sig.v + 27 : sig.v;
    if (v !== 27 && v !== 28) return undefined;
    const hex = (x: bigint) => `0x${x.toString(16).padStart(64, "0")}`;
    return Signature.from({ r: hex(r), s: hex(s), v });
  } catch {
    return undefined; // e.g. a non-canonical (high) s
  }
}

function recover(domain: object, types: Record<string, TypedDataField[]>, message: object, sig: WireSignature) {
  const signature = toSignature(sig);
  if (!signature) return undefined;
  try {
    return verifyTypedData(domain, types, message, signature).toLowerCase();
  } catch {
    return undefined; // r is not a curve point: nobody signed this
  }
}

/** Lowercase address of whoever signed the L1 action's connectionId, or undefined if unusable. */
export function recoverL1Signer(connectionId: string, network: Network, signature: WireSignature): string | undefined {
  return recover(L1_DOMAIN, AGENT_TYPES, { source: l1Source(network), connectionId }, signature);
}

/** Lowercase address of whoever signed a user-signed action (message = the typed fields only). */
export function recoverUserSigner(
  primaryType: string,
  signatureChainId: string,
  message: Record<string, unknown>,
  signature: WireSignature,
): string | undefined {
  const fields = USER_SIGNED_TYPES[primaryType];
  if (!fields) throw new Error(`unknown user-signed type ${primaryType}`);
  const domain = {
    name: "HyperliquidSignTransaction",
    version: "1",
    chainId: BigInt(signatureChainId),
    verifyingContract: ZeroAddress,
  };
  const typed = Object.fromEntries(fields.map((f) => [f.name, message[f.name]]));
  return recover(domain, { [primaryType]: fields }, typed, signature);
}
