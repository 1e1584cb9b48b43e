// The local test settlement token (tUSDC): USDC-like metadata, owner-only mint, EIP-2612 domain.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { contractAt, deploySettlementToken, mintSettlementToken, readTokenBalance } from "../../daemon/chain/contracts.js";
import { USDC, rejects, setupChain } from "./fixture.js";
import type { Chain } from "./fixture.js";

let chain: Chain;

test.before(async () => {
  chain = await setupChain();
});

test("tUSDC has 6 decimals, its name and symbol, and a permit domain named after it", async () => {
  const token = contractAt("TestUSDC", chain.token, chain.provider);
  assert.is(await token.getFunction("decimals")(), 6n);
  assert.is(await token.getFunction("name")(), "Test USD Coin");
  assert.is(await token.getFunction("symbol")(), "tUSDC");
  const domain = await token.getFunction("eip712Domain")();
  assert.equal([domain[1], domain[2], domain[3], domain[4]], ["Test USD Coin", "1", chain.chainId, chain.token]);
});

test("only the owner (the operator) mints", async () => {
  await mintSettlementToken(chain.operator, { token: chain.token, to: chain.trader.address, amount: 5n * USDC });
  assert.is(await readTokenBalance(chain.provider, { token: chain.token, account: chain.trader.address }), 5n * USDC);
  await rejects(
    mintSettlementToken(chain.stranger, { token: chain.token, to: chain.stranger.address, amount: USDC }),
    "OwnableUnauthorizedAccount",
    "FORBIDDEN",
  );
  assert.is(await readTokenBalance(chain.provider, { token: chain.token, account: chain.stranger.address }), 0n);
});

test("deploySettlementToken can name another owner", async () => {
  const other = await deploySettlementToken(chain.operator, { owner: chain.investor.address });
  await rejects(mintSettlementToken(chain.operator, { token: other.address, to: chain.operator.address, amount: 1n }), "OwnableUnauthorizedAccount");
  await mintSettlementToken(chain.investor, { token: other.address, to: chain.investor.address, amount: 1n });
  assert.is(await readTokenBalance(chain.provider, { token: other.address, account: chain.investor.address }), 1n);
});

test.run();
