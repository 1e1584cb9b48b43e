// A factory from before breach policies takes terms without the field: every proposal signed for it
// would be refused on-chain after both parties signed. The daemon checks VaultFactory.TERMS_VERSION at
// start (daemon/chain/chain.ts) and refuses anything else with a message that says what to do.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { assertTermsVersion } from "../../daemon/chain/contracts.js";
import { TERMS_VERSION } from "../../daemon/chain/terms.js";
import { setupChain } from "./fixture.js";
import type { Chain } from "./fixture.js";

let chain: Chain;
test.before(async () => {
  chain = await setupChain();
});

test("this daemon's factory passes", async () => {
  assert.is(TERMS_VERSION, 2);
  await assertTermsVersion(chain.provider, chain.factory);
});

test("a contract without TERMS_VERSION (an older factory) is refused with what to do", async () => {
  // The token has code but no TERMS_VERSION, as a factory deployed before breach policies.
  const err = await assertTermsVersion(chain.provider, chain.token).then(() => undefined, (e: Error) => e);
  assert.ok(err, "refused");
  assert.match(err!.message, /predates breach policies/);
  assert.match(err!.message, /new --data-dir/);
});

test.run();
