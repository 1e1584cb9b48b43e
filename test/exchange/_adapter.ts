// The adapter's tests' common set-up: a sim over HTTP, the adapter to it, and a funded master wallet
// whose agent is approved.
import { Wallet } from "ethers";
import { createHyperliquidAdapter } from "../../daemon/exchange/hyperliquid-adapter.js";
import type { ExchangeAdapter } from "../../daemon/exchange/types.js";
import { startSim, type SimHarness } from "../sim/_support.js";

export interface AdapterRig {
  h: SimHarness;
  ex: ExchangeAdapter;
  master: Wallet;
  agent: Wallet;
}

export async function adapterWithAgent(timeoutMs: number): Promise<AdapterRig> {
  const h = await startSim();
  const ex = createHyperliquidAdapter({ kind: "sim", url: h.sim.url, isTestnet: true, timeoutMs });
  const master = Wallet.createRandom() as unknown as Wallet;
  const agent = Wallet.createRandom() as unknown as Wallet;
  await h.sim.faucet(master.address, "5000");
  await h.exchange(master).approveAgent({ agentAddress: agent.address as `0x${string}`, agentName: "t valid_until 4102444800000" });
  return { h, ex, master, agent };
}
