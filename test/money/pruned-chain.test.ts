// On the embedded chain, which drops old blocks at each compaction, a vault whose first events are
// gone from the node still verifies through the daemon (its index fills the gap, and the answer says
// so), while the chain alone is unreadable, never broken.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { chainRecordsFrom } from "../../daemon/verify/chain-records.js";
import { exchangeRecordsFrom } from "../../daemon/verify/exchange-records.js";
import { verifyVault } from "../../daemon/verify/verify-vault.js";
import { faucet } from "../helpers/daemon.js";
import { waitUntil } from "../helpers/util.js";
import { startVaultDaemon, vaultCase } from "../helpers/vaults.js";

const d = await startVaultDaemon({ chainCompactBlocks: 100 });
test.after(() => d.close());

test("a vault whose first blocks were compacted away verifies through the daemon, and is unreadable from the chain alone", async () => {
  const c = await vaultCase(d);
  await faucet(d, c.ivy.address, 250);
  const publicly = async () => {
    const chain = chainRecordsFrom(d.daemon.chain.rpcUrl);
    try {
      return await verifyVault(c.vault, { chain: chain.read, exchange: exchangeRecordsFrom(`${d.daemon.sim!.url}/info`) }, 0);
    } finally {
      chain.close();
    }
  };
  assert.is((await publicly()).outcome, "holds");
  // A reading a cycle, a block each, until a compaction has dropped the vault's first blocks.
  await waitUntil(async () => {
    await d.daemon.oracle.cycle();
    return (await publicly()).outcome === "unreadable";
  }, { slowMs: 300_000, intervalMs: 1, what: "a compaction to drop the vault's first blocks" });
  const pub = await publicly();
  assert.match(pub.reason!, /no VaultCreated event .* prunes old blocks/, pub.reason);
  const r = await d.http.get(`/api/vaults/${c.vault}/verify`, { token: c.ivy.token });
  const v = r.body.data.verification;
  assert.is(v.outcome, "holds", JSON.stringify(v, null, 1));
  assert.match(v.note, /the daemon's index/);
});

test.run();
