// The agent's typed-data signer signs what ethers' Wallet signs, byte for byte, for the SDK's L1
// actions (the path every order takes) and for any other EIP-712 shape, its caches keyed on content.
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { signL1Action } from "@nktkas/hyperliquid/signing";
import { verifyTypedData, Wallet } from "ethers";
import { typedDataSigner } from "../../daemon/exchange/typed-data-signer.js";

const t = suite("typed-data signer");
const wallet = new Wallet("0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d");
const order = (px: string) => ({
  type: "order" as const,
  orders: [{ a: 0, b: true, p: px, s: "0.001", r: false, t: { limit: { tif: "Gtc" as const } }, c: "0x8000000000000000000000000000abcd" as const }],
  grouping: "na" as const,
});

t("an order's L1 signature equals the one the SDK makes with ethers' Wallet", async () => {
  const fast = typedDataSigner(wallet);
  for (const [i, isTestnet] of [[0, true], [1, false], [2, true]] as const) {
    const args = { action: order(String(30_000 + i)), nonce: 1_700_000_000_000 + i, isTestnet, expiresAfter: 1_800_000_000_000 };
    assert.equal(await signL1Action({ ...args, wallet: fast }), await signL1Action({ ...args, wallet }), `action ${i}`);
  }
});

t("domains and types are told apart by content, not mixed up by the caches", async () => {
  const fast = typedDataSigner(wallet);
  const types = { Mail: [{ name: "to", type: "address" }, { name: "body", type: "string" }] };
  const message = { to: "0x000000000000000000000000000000000000dEaD", body: "hi" };
  for (const chainId of [1, 1337, 1]) {
    const domain = { name: "Mail", version: "1", chainId, verifyingContract: "0x0000000000000000000000000000000000000001" };
    const sig = await fast.signTypedData({ domain, types, primaryType: "Mail", message });
    assert.is(sig, await wallet.signTypedData(domain, types, message), `chain ${chainId}`);
    assert.is(verifyTypedData(domain, types, message, sig), wallet.address);
  }
  const other = { Note: [{ name: "body", type: "string" }] };
  const domain = { name: "Mail", version: "1", chainId: 1, verifyingContract: "0x0000000000000000000000000000000000000001" };
  assert.is(await fast.signTypedData({ domain, types: other, primaryType: "Note", message: { body: "hi" } }),
    await wallet.signTypedData(domain, other, { body: "hi" }));
});

t.run();
