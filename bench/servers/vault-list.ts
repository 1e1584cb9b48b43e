// Daemon side of http-read: a daemon on the embedded defaults (the sim with its random price feed,
// the embedded chain) with two signed-in wallets, one trading `vaults` vaults and one with none.
import { Wallet } from "ethers";
import { createVaults, hostDaemon, signIn, type HostedDaemon } from "../lib/daemon-host.js";

export interface VaultListTarget {
  url: string;
  /** Per case ("empty", "full"): the bearer token and the body GET /api/vaults answers it. */
  cases: Record<"empty" | "full", { token: string; body: unknown }>;
}

async function listed(url: string, token: string, expected: number): Promise<unknown> {
  const res = await fetch(`${url}/api/vaults`, { headers: { Authorization: `Bearer ${token}` } });
  const body = (await res.json()) as { data: { vaults: unknown[] } };
  if (!res.ok || body.data.vaults.length !== expected) throw new Error(`GET /api/vaults: ${res.status}, ${body.data?.vaults?.length} vaults`);
  return body;
}

export function serve() {
  let hosted: HostedDaemon | undefined;
  return {
    async start(vaults: number): Promise<VaultListTarget> {
      hosted = await hostDaemon({ config: { simFeed: "random" } });
      const { url } = hosted.daemon;
      const trader = Wallet.createRandom();
      const idle = Wallet.createRandom();
      const [full, empty] = [await signIn(url, trader), await signIn(url, idle)];
      await createVaults(hosted.daemon, trader, vaults);
      return {
        url,
        cases: {
          empty: { token: empty, body: await listed(url, empty, 0) },
          full: { token: full, body: await listed(url, full, vaults) },
        },
      };
    },
    close: () => hosted?.close(),
  };
}
