// Hyperliquid's approveAgent action as EIP-712 typed data (for eth_signTypedData_v4), and its
// signer check. Rebuilt from (agent, nonce, chain) alone, so the daemon never trusts a client's
// copy of what was signed.
import { Signature, verifyTypedData } from "ethers";
import { ApproveAgentTypes } from "@nktkas/hyperliquid/api/exchange";
import { SIGNATURE_CHAIN_ID, type SignedUserAction } from "../exchange/types.js";

export const AGENT_NAME = "tradevault";
export const AGENT_VALID_MS = 90 * 86_400_000;

export interface ApprovalParams {
  agentAddress: string;
  nonce: number;
  hyperliquidChain: "Mainnet" | "Testnet";
  signatureChainId?: string;
}

export const agentValidUntil = (nonce: number) => nonce + AGENT_VALID_MS;

function action(p: ApprovalParams) {
  return {
    type: "approveAgent",
    signatureChainId: p.signatureChainId ?? SIGNATURE_CHAIN_ID,
    hyperliquidChain: p.hyperliquidChain,
    agentAddress: p.agentAddress.toLowerCase(),
    agentName: `${AGENT_NAME} valid_until ${agentValidUntil(p.nonce)}`,
    nonce: p.nonce,
  };
}

export function approvalTypedData(p: ApprovalParams) {
  const a = action(p);
  const domain = {
    name: "HyperliquidSignTransaction",
    version: "1",
    chainId: Number.parseInt(a.signatureChainId, 16),
    verifyingContract: "0x0000000000000000000000000000000000000000",
  };
  const primaryType = "HyperliquidTransaction:ApproveAgent" as const;
  return {
    domain,
    types: {
      EIP712Domain: [
        { name: "name", type: "string" },
        { name: "version", type: "string" },
        { name: "chainId", type: "uint256" },
        { name: "verifyingContract", type: "address" },
      ],
      [primaryType]: ApproveAgentTypes[primaryType],
    },
    primaryType,
    message: {
      hyperliquidChain: a.hyperliquidChain,
      agentAddress: a.agentAddress,
      agentName: a.agentName,
      nonce: String(a.nonce),
    },
  };
}

/** The address that signed the approval (throws on a malformed signature). */
export function approvalSigner(p: ApprovalParams, signature: string): string {
  const td = approvalTypedData(p);
  const types = { [td.primaryType]: td.types[td.primaryType] };
  return verifyTypedData(td.domain, types, td.message, signature);
}

export function signedApproval(p: ApprovalParams, signature: string): SignedUserAction {
  const sig = Signature.from(signature);
  return { action: action(p), nonce: p.nonce, signature: { r: sig.r, s: sig.s, v: sig.v } };
}
