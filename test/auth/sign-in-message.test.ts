// Challenge texts must parse back with siwe field for field, for every origin and every challenge;
// their nonces name when they were issued and expire, and open only under their key, for their
// address and site.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { SiweMessage } from "siwe";
import { Wallet } from "ethers";
import { randomBytes } from "node:crypto";
import { challengeMessage } from "../../daemon/auth/sign-in-message.js";
import { mintNonce, openNonce, type NonceFields } from "../../daemon/auth/sign-in-nonce.js";

const origins = [
  { publicUrl: "http://127.0.0.1:8420", chainId: 31337 },
  { publicUrl: "https://vault.example.com", chainId: 998 },
  { publicUrl: "https://vault.example.com:8443/", chainId: 1 },
];

test("every challenge parses back with siwe, with the address, nonce, times and origin given", () => {
  for (const origin of origins) {
    for (let i = 0; i < 3; i++) {
      const address = Wallet.createRandom().address;
      const now = Date.UTC(2026, 10, 23, 12, 0, i);
      const expiresAt = now + 300_000;
      const nonce = mintNonce(randomBytes(32), { origin: new URL(origin.publicUrl).origin, chainId: origin.chainId, address, issuedAt: now, expiresAt });
      const c = { nonce, message: challengeMessage(origin, { address, nonce, issuedAt: now, expiresAt }) };
      const parsed = new SiweMessage(c.message);
      const url = new URL(origin.publicUrl);
      assert.is(parsed.address, address);
      assert.is(parsed.nonce, c.nonce);
      assert.is(parsed.domain, url.host);
      assert.is(parsed.scheme, url.protocol.slice(0, -1));
      assert.is(parsed.uri, url.origin);
      assert.is(parsed.chainId, origin.chainId);
      assert.is(parsed.issuedAt, new Date(now).toISOString());
      assert.is(parsed.expirationTime, new Date(now + 300_000).toISOString());
      assert.is(parsed.prepareMessage(), c.message, "siwe lays it out identically");
      assert.match(c.message, "\nSign in to tradevault. This request will not trigger a blockchain transaction or cost any gas.\n");
    }
  }
});

const key = randomBytes(32);
const fields: NonceFields = {
  origin: "https://vault.example.com", chainId: 998, address: Wallet.createRandom().address,
  issuedAt: Date.UTC(2026, 10, 27, 2, 0, 0, 123), expiresAt: Date.UTC(2026, 10, 27, 2, 5, 0, 123),
};
const claim = { address: fields.address, chainId: fields.chainId, origins: ["http://127.0.0.1:8420", fields.origin] };

test("a nonce opens under its key, for its address, chain and an allowed origin, with its times", () => {
  const nonce = mintNonce(key, fields);
  assert.match(nonce, /^[0-9a-f]{64}$/, "alphanumeric (SIWE) and within the API's 64 characters");
  assert.equal(openNonce(key, nonce, claim), fields);
  assert.is(openNonce(randomBytes(32), nonce, claim), undefined, "another key");
  assert.is(openNonce(key, nonce, { ...claim, address: Wallet.createRandom().address }), undefined, "another address");
  assert.is(openNonce(key, nonce, { ...claim, chainId: 1 }), undefined, "another chain");
  assert.is(openNonce(key, nonce, { ...claim, origins: ["http://127.0.0.1:8420"] }), undefined, "its site no longer allowed");
});

test("a nonce whose times or tag were changed does not open", () => {
  const nonce = mintNonce(key, fields);
  // A later expiry written into the nonce (digits 12-23) would keep a signed message alive.
  const later = nonce.slice(0, 12) + (fields.expiresAt + 3_600_000).toString(16).padStart(12, "0") + nonce.slice(24);
  assert.is(openNonce(key, later, claim), undefined);
  const flipped = nonce.slice(0, 63) + (nonce[63] === "0" ? "1" : "0");
  assert.is(openNonce(key, flipped, claim), undefined);
  assert.is(openNonce(key, nonce.toUpperCase(), claim), undefined, "only the layout minted");
  assert.is(openNonce(key, nonce.slice(0, 40), claim), undefined);
});

test("nonces are fresh per challenge, even in one millisecond", () => {
  assert.is.not(mintNonce(key, fields), mintNonce(key, fields));
});

test.run();
