// The operator's one pause power: pause(reason) for what the contract cannot see (the
// exchange account changed mode). It can never use a breach's bits, never pauses a closed vault, is a
// no-op on a paused one, and lifting it is the trader's unpause with the usual recovery rule.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { closeVault, contractAt, OPERATOR_PAUSE_ACCOUNT_MODE, pauseVault, readVaultState, unpauseVault } from "../../daemon/chain/contracts.js";
import { freshChainPerTest, newVault, rejects } from "./fixture.js";
import type { Chain } from "./fixture.js";

let chain: Chain;
freshChainPerTest(test, (c) => (chain = c));

const pausedEvents = async (vault: string) => {
  const c = contractAt("TradingVault", vault, chain.provider);
  return (await c.queryFilter(c.filters.Paused!())).map((e) => Number((e as unknown as { args: { reason: bigint } }).args.reason));
};

test("the operator pauses with its own reason; the event carries it; a second pause changes nothing", async () => {
  const { vault } = await newVault(chain);
  await pauseVault(chain.operator, { vault, reason: OPERATOR_PAUSE_ACCOUNT_MODE });
  assert.is((await readVaultState(chain.provider, { vault })).paused, true);
  await pauseVault(chain.operator, { vault, reason: OPERATOR_PAUSE_ACCOUNT_MODE });
  assert.equal(await pausedEvents(vault), [4]);
});

test("only the operator: not the trader, not the investor", async () => {
  const { vault } = await newVault(chain);
  await rejects(pauseVault(chain.trader, { vault, reason: 4 }), "NotAuthorized");
  await rejects(pauseVault(chain.investor, { vault, reason: 4 }), "NotAuthorized");
  assert.is((await readVaultState(chain.provider, { vault })).paused, false);
});

test("a breach's bits (1, 2) or no reason are refused: the operator cannot fake a breach", async () => {
  const { vault } = await newVault(chain);
  for (const reason of [0, 1, 2, 3, 5, 7]) {
    const e = await rejects(pauseVault(chain.operator, { vault, reason }), "InvalidPauseReason");
    assert.equal(e.args.map(Number), [reason]);
  }
  await pauseVault(chain.operator, { vault, reason: 8 });
});

test("a closed vault cannot be paused; the trader lifts an operator pause when no limit is breached", async () => {
  const closed = (await newVault(chain)).vault;
  await closeVault(chain.operator, { vault: closed });
  await rejects(pauseVault(chain.operator, { vault: closed, reason: 4 }), "VaultClosed");
  const { vault } = await newVault(chain);
  await pauseVault(chain.operator, { vault, reason: 4 });
  await unpauseVault(chain.trader, { vault });
  assert.is((await readVaultState(chain.provider, { vault })).paused, false);
});

test.run();
