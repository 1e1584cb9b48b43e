// Daemon side of http-read: a daemon with two signed-in wallets, one trading `vaults` vaults and one
// with none. Alone, on the embedded defaults (the sim with its random price feed, the embedded
// chain); or, given `shared`, on an external chain and exchange (and a PostgreSQL database when it
// names one), as daemons sharing a database run.
import { Wallet } from "ethers";
import { createVaults, hostDaemon, sharedConfig, signIn, simFaucet, type HostedDaemon, type SharedSetup } from "../lib/daemon-host.js";

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
    async start(vaults: number, shared?: SharedSetup): Promise<VaultListTarget> {
      hosted = await hostDaemon({ config: shared ? sharedConfig(shared) : { simFeed: "random" } });
      const { url } = hosted.daemon;
      const trader = Wallet.createRandom();
      const idle = Wallet.createRandom();
      const [full, empty] = [await signIn(url, trader), await signIn(url, idle)];
      await createVaults(hosted.daemon, trader, vaults, shared ? { faucet: (user, amount) => simFaucet(shared.exchangeUrl, user, amount) } : {});
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
