// The published signing vectors (HYPERLIQUID.md section 7) reproduced with the sim's own canonical
// parsing and hashing, and recovered to the published signer.
import { createL1ActionHash } from "@nktkas/hyperliquid/signing";
import { keccak256, Wallet } from "ethers";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { l1ConnectionId, recoverL1Signer, recoverUserSigner } from "../../daemon/sim/signing.js";
import { parseExchangeRequest, type L1Action } from "../../daemon/sim/wire.js";

const PY_SIGNER = "0x14791697260e4c9a71f18484c9f997b308e59325";
const NK_KEY = "0x822e9959e022b78423eb653a62ea0020cd283e71a2a8133a6ff2aeffaf373cff";
const NK_SIGNER = "0xe5ca49fb3bd9a581f0d1ef9cb5d7177da08bf901";
const ANY_SIG = { r: "0x1", s: "0x1", v: 27 };

/** Parses an action the way /exchange does and returns the canonical form. */
function canonical(action: object, nonce = 0): L1Action {
  const req = parseExchangeRequest({ action, nonce, signature: ANY_SIG });
  if (req.kind !== "l1") throw new Error(`expected an L1 action, got ${req.kind}`);
  return req.action as L1Action;
}

const PY_ORDER = {
  type: "order",
  orders: [{ a: 1, b: true, p: "100", s: "100", r: false, t: { limit: { tif: "Gtc" } } }],
  grouping: "na",
};

test("python order vector: connectionId and signer, mainnet and testnet", () => {
  const id = l1ConnectionId(canonical(PY_ORDER), 0);
  assert.is(id, "0x884f2c32bb6dbdd65f6033e32fb28c0cb6f5b345db0f6471fd3366d85c9252c1");
  const main = { r: "0xd65369825a9df5d80099e513cce430311d7d26ddf477f5b3a33d2806b100d78e", s: "0x2b54116ff64054968aa237c20ca9ff68000f977c93289157748a3162b6ea940e", v: 28 };
  const testnet = { r: "0x82b2ba28e76b3d761093aaded1b1cdad4960b3af30212b343fb2e6cdfa4e3d54", s: "0x6b53878fc99d26047f4d7e8c90eb98955a109f44209163f52d8dc4278cbbd9f5", v: 27 };
  assert.is(recoverL1Signer(id, "Mainnet", main), PY_SIGNER);
  assert.is(recoverL1Signer(id, "Testnet", testnet), PY_SIGNER);
  assert.is.not(recoverL1Signer(id, "Testnet", main), PY_SIGNER, "source a vs b is part of the signature");
});

test("the preimage is byte-for-byte the published msgpack", () => {
  const preimage = "0x83a474797065a56f72646572a66f72646572739186a16101a162c3a170a3313030a173a3313030a172c2a17481a56c696d697481a3746966a3477463a867726f7570696e67a26e61" + "0000000000000000" + "00";
  assert.is(keccak256(preimage), l1ConnectionId(canonical(PY_ORDER), 0));
});

test("python order+cloid vector, including the unpadded r python prints", () => {
  const withCloid = { ...PY_ORDER, orders: [{ ...PY_ORDER.orders[0], c: "0x00000000000000000000000000000001" }] };
  const id = l1ConnectionId(canonical(withCloid), 0);
  assert.is(id, "0x0ba500cedd8f4ba6ded620a0b1cd04f124d9ba745e2e2893fcc763bcc1444af5");
  const s = "0x3c61f667e747404fe7eea8f90ab0e76cc12ce60270438b2058324681a00116da";
  assert.is(recoverL1Signer(id, "Mainnet", { r: "0x041ae18e8239a56cacbc5dad94d45d0b747e5da11ad564077fcac71277a946e3", s, v: 27 }), PY_SIGNER);
  assert.is(recoverL1Signer(id, "Mainnet", { r: "0x41ae18e8239a56cacbc5dad94d45d0b747e5da11ad564077fcac71277a946e3", s, v: 27 }), PY_SIGNER);
  const test = { r: "0xeba0664bed2676fc4e5a743bf89e5c7501aa6d870bdb9446e122c9466c5cd16d", s: "0x7f3e74825c9114bc59086f1eebea2928c190fdfbfde144827cb02b85bbe90988", v: 28 };
  assert.is(recoverL1Signer(id, "Testnet", test), PY_SIGNER);
});

test("python tpsl vector: trigger fields in isMarket, triggerPx, tpsl order", () => {
  const tpsl = {
    type: "order",
    grouping: "na",
    orders: [{ t: { trigger: { tpsl: "sl", triggerPx: "103", isMarket: true } }, a: 1, b: true, p: "100", s: "100", r: false }],
  };
  const id = l1ConnectionId(canonical(tpsl), 0);
  assert.is(id, "0x430a86fb9876e901920d931f5bb20c9d011f6389bd179f39a73c09e6219adcad");
  const main = { r: "0x98343f2b5ae8e26bb2587daad3863bc70d8792b09af1841b6fdd530a2065a3f9", s: "0x6b5bb6bb0633b710aa22b721dd9dee6d083646a5f8e581a20b545be6c1feb405", v: 27 };
  assert.is(recoverL1Signer(id, "Mainnet", main), PY_SIGNER);
});

test("rust cancel vector: the published preimage, an oid needing uint32, nonce 1584862", () => {
  const preimage = "0x82a474797065a663616e63656ca763616e63656c739182a16101a16fce000141ce" + "0000000000182ade" + "00";
  const expected = "0xa53262329d1e221a88ff73e5ce330e0e47fb646091cae7020c34c346e592b77e";
  assert.is(keccak256(preimage), expected);
  const action = canonical({ cancels: [{ o: 0x141ce, a: 1 }], type: "cancel" }, 0x182ade);
  assert.equal(action, { type: "cancel", cancels: [{ a: 1, o: 82382 }] });
  assert.is(l1ConnectionId(action, 0x182ade), expected);
});

test("nktkas vectors: vault and expiresAfter in the hash, and its signatures", async () => {
  const action = canonical({ type: "order", orders: [{ a: 0, b: true, p: "30000", s: "0.1", r: false, t: { limit: { tif: "Gtc" } } }], grouping: "na" });
  const nonce = 1234567890;
  const vault = "0x1234567890123456789012345678901234567890";
  assert.is(l1ConnectionId(action, nonce), "0x25367e0dba84351148288c2233cd6130ed6cec5967ded0c0b7334f36f957cc90");
  assert.is(l1ConnectionId(action, nonce, vault), "0x214e2ea3270981b6fd18174216691e69f56872663139d396b10ded319cb4bb1e");
  assert.is(l1ConnectionId(action, nonce, undefined, nonce), "0xc30b002ba3775e4c31c43c1dfd3291dfc85c6ae06c6b9f393991de86cad5fac7");
  assert.is(l1ConnectionId(action, nonce, vault, nonce), "0x2d62412aa0fc57441b5189841d81554a6a9680bf07204e1454983a9ca44f0744");
  const id = l1ConnectionId(action, nonce);
  const main = { r: "0x61078d8ffa3cb591de045438a1ae2ed299b271891d1943a33901e7cfb3a31ed8", s: "0x0e91df4f9841641d3322dad8d932874b74d7e082cdb5b533f804964a6963aef9", v: 28 };
  const testnet = { r: "0x6b0283a894d87b996ad0182b86251cc80d27d61ef307449a2ed249a508ded1f7", s: "0x6f884e79f4a0a10af62db831af6f8e03b3f11d899eb49b352f836746ee9226da", v: 27 };
  assert.is(recoverL1Signer(id, "Mainnet", main), NK_SIGNER);
  assert.is(recoverL1Signer(id, "Testnet", testnet), NK_SIGNER);
  assert.is(new Wallet(NK_KEY).address.toLowerCase(), NK_SIGNER);
});

test("user-signed vectors: UsdSend and Withdraw (python, testnet) and UsdSend (nktkas, mainnet)", () => {
  const msg = { hyperliquidChain: "Testnet", destination: "0x5e9ee1089755c3435139848e47e6635505d5a13a", amount: "1", time: 1687816341423 };
  const usdSend = { r: "0x637b37dd731507cdd24f46532ca8ba6eec616952c56218baeff04144e4a77073", s: "0x11a6a24900e6e314136d2592e2f8d502cd89b7c15b198e1bee043c9589f9fad7", v: 27 };
  const withdraw = { r: "0x8363524c799e90ce9bc41022f7c39b4e9bdba786e5f9c72b20e43e1462c37cf9", s: "0x58b1411a775938b83e29182e8ef74975f9054c8e97ebf5ec2dc8d51bfc893881", v: 28 };
  assert.is(recoverUserSigner("HyperliquidTransaction:UsdSend", "0x66eee", msg, usdSend), PY_SIGNER);
  assert.is(recoverUserSigner("HyperliquidTransaction:Withdraw", "0x66eee", msg, withdraw), PY_SIGNER);
  assert.is.not(recoverUserSigner("HyperliquidTransaction:UsdSend", "0x1", msg, usdSend), PY_SIGNER, "chain id is signed");
  const nk = { hyperliquidChain: "Mainnet", destination: "0x1234567890123456789012345678901234567890", amount: "1000", time: 1234567890 };
  const nkSig = { r: "0xf777c38efe7c24cc71209526ae608f4e384d0586edf578f0e97b4b9f7c7adcc6", s: "0x104a4a97c48ae77bf5bd777bdd45fe72d8f5ff29116b5ff64fd8cfe4ea610786", v: 28 };
  assert.is(recoverUserSigner("HyperliquidTransaction:UsdSend", "0x66eee", nk, nkSig), NK_SIGNER);
});

test("canonical form: key order is the exchange's and trailing zeros are stripped", () => {
  const shuffled = { grouping: "na", orders: [{ t: { limit: { tif: "Gtc" } }, r: false, s: "100.000", p: "0100.0", b: true, a: 1 }], type: "order" };
  const action = canonical(shuffled);
  assert.is(JSON.stringify(action), JSON.stringify(PY_ORDER));
  // A client that hashed its non-canonical bytes signed something else (nktkas issue #1).
  const clientHash = createL1ActionHash({ action: shuffled, nonce: 0 });
  assert.is.not(clientHash, l1ConnectionId(action, 0));
});

test("a flipped signature byte or a high s never recovers the signer", () => {
  const id = l1ConnectionId(canonical(PY_ORDER), 0);
  const r = "0xd65369825a9df5d80099e513cce430311d7d26ddf477f5b3a33d2806b100d78e";
  const s = "0x2b54116ff64054968aa237c20ca9ff68000f977c93289157748a3162b6ea940e";
  assert.is.not(recoverL1Signer(id, "Mainnet", { r: r.replace("d653", "d654"), s, v: 28 }), PY_SIGNER);
  assert.is.not(recoverL1Signer(id, "Mainnet", { r, s: s.replace("2b54", "2b55"), v: 28 }), PY_SIGNER);
  const n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
  const highS = `0x${(n - BigInt(s)).toString(16)}`;
  assert.is(recoverL1Signer(id, "Mainnet", { r, s: highS, v: 27 }), undefined);
});

test.run();
