// Daemon side of order-path: a daemon with a trader ready to trade (signed in, sim USDC, agent
// approved) and a funded wallet for the direct-to-sim baseline; fresh ones on demand so that each
// run starts on an empty book. Counts SQLite commits per database file on demand, so the benchmark
// can report what durability costs an order.
import { Wallet } from "ethers";
import { commitProbe } from "../lib/commit-counter.js";
import { approveAgent, hostDaemon, signIn, type HostedDaemon } from "../lib/daemon-host.js";
import { sqliteHandle } from "../../daemon/db/sqlite-store.js";

export interface OrderDesk {
  url: string;
  simUrl: string;
  /** The sim's asset index of BTC. */
  btcAsset: number;
}

export interface OrderAccounts {
  /** Session of a trader whose agent is approved. */
  token: string;
  /** Private key of a funded sim account for the direct baseline (a throwaway wallet). */
  directKey: string;
}

export function serve() {
  let hosted: HostedDaemon | undefined;
  return {
    async start(): Promise<OrderDesk> {
      hosted = await hostDaemon();
      const sim = hosted.daemon.sim!;
      return { url: hosted.daemon.url, simUrl: sim.url, btcAsset: sim.markets.findIndex((m) => m.name === "BTC") };
    },
    async accounts(): Promise<OrderAccounts> {
      const { daemon } = hosted!;
      const trader = Wallet.createRandom();
      const direct = Wallet.createRandom();
      const token = await signIn(daemon.url, trader);
      await daemon.sim!.faucet(trader.address, 1_000_000);
      await daemon.sim!.faucet(direct.address, 1_000_000);
      await approveAgent(daemon.url, token, trader);
      return { token, directKey: direct.privateKey };
    },
    ...commitProbe(),
    /** Experiments only: e.g. "OFF" to see what fsyncs cost the order path. */
    synchronous(mode: string): void {
      sqliteHandle(hosted!.daemon.store).pragma(`synchronous = ${mode}`);
    },
    close: () => hosted?.close(),
  };
}
