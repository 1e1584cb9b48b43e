// Challenge texts must parse back with siwe field for field, for every origin and every challenge.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { SiweMessage } from "siwe";
import { Wallet } from "ethers";
import { buildChallenge } from "../../daemon/auth/sign-in-message.js";

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
      const c = buildChallenge(origin, address, now, 300_000);
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
      assert.is(c.expiresAt, now + 300_000);
      assert.is(parsed.prepareMessage(), c.message, "siwe lays it out identically");
      assert.match(c.message, "\nSign in to tradevault. This request will not trigger a blockchain transaction or cost any gas.\n");
    }
  }
});

test("nonces are fresh per challenge", () => {
  const a = buildChallenge(origins[0]!, Wallet.createRandom().address, 0, 1);
  const b = buildChallenge(origins[0]!, Wallet.createRandom().address, 0, 1);
  assert.is.not(a.nonce, b.nonce);
});

test.run();
