// A process that runs the daemon's chain module on a data directory and writes as the oracle does
// (one batched balance update per cycle for every open vault) and closes a vault every few cycles,
// printing a line for each write once it is acknowledged (mined, and applied to the database). The
// crash test SIGKILLs it at random points and starts it again on the same directory.
// Usage: node --import tsx test/crash/_chain-writer.ts <dataDir> (or its .js in the test runner's copy)
import { join } from "node:path";
import { Wallet } from "ethers";
import { closeVault, updateBalances } from "../../daemon/chain/contracts.js";
import { loadOrCreateOperatorKey } from "../../daemon/chain/operator-key.js";
import { openStore } from "../../daemon/db/database.js";
import { USDC, chainNow, newVault, recorded, silent, startIndexed } from "../chain/_support.js";
import type { Env } from "../chain/_support.js";

const dir = process.argv[2]!;
const store = await openStore(join(dir, "db.sqlite"));
const operatorKey = loadOrCreateOperatorKey(join(dir, "keys", "operator.key")).privateKey;
const chain = await startIndexed({
  dataDir: dir, store, log: silent, operatorKey,
  // Snapshots and compactions while it runs, so a kill can land in any of them.
  embedded: { port: 0, snapshotIntervalS: 1, compactEveryBlocks: 100 },
});
const say = (line: string) => process.stdout.write(`${line}\n`);
say(`anvil ${chain.embedded!.pid()}`);

const openVaults = async () =>
  (await store.db.selectFrom("vaults").select("address").where("closed", "=", 0).orderBy("address").execute()).map((v) => v.address);

if ((await store.db.selectFrom("vaults").select("address").execute()).length === 0) {
  const env = { dir, store, operatorKey, investor: Wallet.createRandom(), trader: Wallet.createRandom() } as unknown as Env;
  for (let i = 0; i < 4; i++) say(`ack create ${(await newVault(chain, env)).vault}`);
}
say("ready");
for (let cycle = 1; ; cycle++) {
  const vaults = await openVaults();
  const t = await chainNow(chain);
  const readings = vaults.map((vault, i) => ({ vault, balance: 10_000n * USDC + BigInt(cycle * 10 + i), observedAt: t }));
  if (readings.length > 0) {
    await recorded(chain, await updateBalances(chain.signer, { factory: chain.addresses.factory, readings }));
    say(`ack update ${t} ${vaults.join(",")}`);
  }
  if (cycle % 5 === 0 && vaults.length > 1) {
    await recorded(chain, await closeVault(chain.signer, { vault: vaults[0]! }));
    say(`ack close ${vaults[0]}`);
  }
}
