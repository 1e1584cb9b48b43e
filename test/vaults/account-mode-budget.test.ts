// Account-mode reads cost 20 weight each: after a start, when every vault is due at once, one cycle
// reads at most ACCOUNT_MODE_READS_PER_CYCLE of them, never-read and longest-unread first, and the
// rest follow in the next cycles (a real store; the exchange's answer is the function under test's input).
import { test } from "uvu";
import * as assert from "uvu/assert";
import { join } from "node:path";
import pino from "pino";
import { hexlify, randomBytes } from "ethers";
import { openStore } from "../../daemon/db/database.js";
import { activeVaults, insertVault, updateVault } from "../../daemon/db/vaults-repo.js";
import { ACCOUNT_MODE_CHECK_MS, ACCOUNT_MODE_READS_PER_CYCLE, createAccountModes } from "../../daemon/vaults/account-modes.js";
import type { VaultBalances } from "../../daemon/vaults/vault-balances.js";
import { tempDir } from "../helpers/util.js";

const address = () => hexlify(randomBytes(20));

test("a cycle reads at most its share of due modes, most overdue first; every vault within a few cycles", async () => {
  const dir = tempDir();
  const store = await openStore(join(dir.path, "t.db"));
  try {
    const n = 25;
    for (let i = 0; i < n; i++) {
      const a = address();
      await insertVault(store.db, {
        address: a, factory: a, investor: a, trader: a, exchange_account: a, initial_balance: "1", max_drawdown_bps: 1,
        daily_drawdown_bps: 1, deal_deadline: 1, trader_share_bps: 1, terms_hash: hexlify(randomBytes(32)), salt: "0x",
        created_block: 1, created_tx: "0x", created_at: 1, current_balance: "1", peak_balance: "1", day_start_balance: "1",
        updated_at: 1, account_mode: null, account_mode_checked_at: null,
      });
    }
    const all = await activeVaults(store.db);
    // One vault was read long ago (due), one within the period (not due); the never-read come first.
    await updateVault(store.db, all[0]!.address, { account_mode: "default", account_mode_checked_at: 1_000 });
    await updateVault(store.db, all[1]!.address, { account_mode: "default", account_mode_checked_at: ACCOUNT_MODE_CHECK_MS + 5_000 });
    let now = 2 * ACCOUNT_MODE_CHECK_MS;
    const reads: string[][] = [];
    let cycle: string[] = [];
    const modes = createAccountModes({
      db: store.db, clock: () => now, log: pino({ level: "silent" }),
      readMode: async (account) => (cycle.push(account), "default"),
      balances: {} as VaultBalances,
      pause: async () => assert.unreachable("nothing leaves the standard modes"),
    });
    for (let c = 0; c < 4; c++) {
      cycle = [];
      await modes.checkDue(await activeVaults(store.db));
      reads.push(cycle);
      now += 1_000;
    }
    assert.equal(reads.map((r) => r.length), [ACCOUNT_MODE_READS_PER_CYCLE, ACCOUNT_MODE_READS_PER_CYCLE, n - 1 - 2 * ACCOUNT_MODE_READS_PER_CYCLE, 0]);
    const never = all.slice(2).map((v) => v.exchange_account);
    assert.ok(reads[0]!.every((a) => never.includes(a)), "never-read vaults first");
    assert.is(reads[2]!.at(-1), all[0]!.exchange_account, "then the longest unread");
    assert.not.ok(reads.flat().includes(all[1]!.exchange_account), "a vault read within the period is not read again");
    assert.is(new Set(reads.flat()).size, n - 1);
  } finally {
    await store.db.destroy();
    dir.remove();
  }
});

test.run();
