// The approveAgent typed data the daemon hands to wallets is byte-for-byte what Hyperliquid's SDK
// signs: the same key over our typed data and over the SDK's action gives the same signature.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { Signature, Wallet } from "ethers";
import { signUserSignedAction } from "@nktkas/hyperliquid/signing";
import { ApproveAgentTypes } from "@nktkas/hyperliquid/api/exchange";
import { approvalSigner, approvalTypedData, signedApproval } from "../../daemon/trading/agent-approval.js";

// The Python SDK's published test key (HYPERLIQUID.md section 7.1).
const KEY = "0x0123456789012345678901234567890123456789012345678901234567890123";
const ADDRESS = "0x14791697260E4c9A71f18484C9f997B308e59325";

test("our typed data signs to the same signature as the SDK's approveAgent action", async () => {
  const wallet = new Wallet(KEY);
  assert.is(wallet.address, ADDRESS);
  const params = { agentAddress: "0x5e9ee1089755c3435139848e47e6635505d5a13a", nonce: 1687816341423, hyperliquidChain: "Testnet" as const };
  const td = approvalTypedData(params);
  const { EIP712Domain: _d, ...types } = td.types;
  const ours = Signature.from(await wallet.signTypedData(td.domain, types, td.message));

  const action = signedApproval(params, ours.serialized).action;
  const sdk = await signUserSignedAction({ wallet, action: action as never, types: ApproveAgentTypes });
  assert.is(ours.r, sdk.r);
  assert.is(ours.s, sdk.s);
  assert.is(ours.v, sdk.v);
  assert.is(approvalSigner(params, ours.serialized), ADDRESS);
  // anything else recovers someone else
  assert.is.not(approvalSigner({ ...params, nonce: params.nonce + 1 }, ours.serialized), ADDRESS);
  assert.is.not(approvalSigner({ ...params, hyperliquidChain: "Mainnet" }, ours.serialized), ADDRESS);
});

test("a browser wallet on another chain id signs the same action with its own signatureChainId", async () => {
  const wallet = new Wallet(KEY);
  const params = { agentAddress: "0x5e9ee1089755c3435139848e47e6635505d5a13a", nonce: 1, hyperliquidChain: "Mainnet" as const, signatureChainId: "0xa4b1" };
  const td = approvalTypedData(params);
  assert.is(td.domain.chainId, 42161);
  const { EIP712Domain: _d, ...types } = td.types;
  const sig = await wallet.signTypedData(td.domain, types, td.message);
  assert.is(approvalSigner(params, sig), ADDRESS);
  assert.is(signedApproval(params, sig).action.signatureChainId, "0xa4b1");
});

test.run();
