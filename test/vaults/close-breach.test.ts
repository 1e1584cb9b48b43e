// A close whose own final reading breaches a limit: the reading pauses the vault on-chain, and the
// close still closes it (seed 6 of the vault lives hung here: the close held the vault's enforcement
// lock and waited for the enforcement run the pause started, which waited for that lock).
import { test } from "uvu";
import * as assert from "uvu/assert";
import { chainVaultState, longBtc, setPrice, startVaultDaemon, vaultCase, vaultEventTypes, vaultPost } from "../helpers/vaults.js";

// No price stream: nothing reads the vault between the move and the close, so the close's reading is the one that breaches.
const d = await startVaultDaemon({ priceStream: false });
test.after(() => d.close());

test("the close's final reading breaches: paused, then closed, and the answer comes", async () => {
  const c = await vaultCase(d);
  await longBtc(c); // 0.1 BTC at 60 000 on 10 000
  setPrice(d, "BTC", "54000"); // -600: past the 5% daily limit
  const r = await vaultPost(c, "close", c.ivy);
  assert.is(r.status, 200, JSON.stringify(r.body));
  assert.ok(Number(r.body.data.vault.finalBalance) < 9_500, r.body.data.vault.finalBalance);
  const s = await chainVaultState(c);
  assert.ok(s.closed, "closed on-chain");
  const types = await vaultEventTypes(c);
  assert.ok(types.includes("Paused") && types.includes("Closed"), types.join());
  // The oracle's cycle is not held up by it either.
  await d.daemon.oracle.cycle();
});

test.run();
