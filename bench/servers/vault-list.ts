// Daemon side of http-read: a daemon with two signed-in wallets, one trading `vaults` vaults and one
// with none. Alone, on the embedded defaults (the sim with its random price feed, the embedded
// chain); or, given `shared`, on an external chain and exchange (and a PostgreSQL database when it
// names one), as daemons sharing a database run.
import { Wallet } from "ethers";
import { createVaults, hostDaemon, signIn, type HostedDaemon } from "../lib/daemon-host.js";

export interface VaultListTarget {
  url: string;
  /** Per case ("empty", "full"): the bearer token and the body GET /api/vaults answers it. */
  cases: Record<"empty" | "full", { token: string; body: unknown }>;
}

export interface SharedSetup {
  rpcUrl: string;
  exchangeUrl: string;
  operatorKeyFile: string;
  databaseUrl?: string;
}

async function listed(url: string, token: string, expected: number): Promise<unknown> {
  const res = await fetch(`${url}/api/vaults`, { headers: { Authorization: `Bearer ${token}` } });
  const body = (await res.json()) as { data: { vaults: unknown[] } };
  if (!res.ok || body.data.vaults.length !== expected) throw new Error(`GET /api/vaults: ${res.status}, ${body.data?.vaults?.length} vaults`);
  return body;
}

const faucetAt = (exchangeUrl: string) => async (user: string, amount: number) => {
  const res = await fetch(`${exchangeUrl}/sim/faucet`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ user, amount }) });
  if (!res.ok) throw new Error(`faucet: ${res.status} ${await res.text()}`);
};

export function serve() {
  let hosted: HostedDaemon | undefined;
  return {
    async start(vaults: number, shared?: SharedSetup): Promise<VaultListTarget> {
      const config = shared
        ? { rpcUrl: shared.rpcUrl, chainId: 31337, exchangeUrl: shared.exchangeUrl, operatorKeyFile: shared.operatorKeyFile, databaseUrl: shared.databaseUrl }
        : { simFeed: "random" };
      hosted = await hostDaemon({ config });
      const { url } = hosted.daemon;
      const trader = Wallet.createRandom();
      const idle = Wallet.createRandom();
      const [full, empty] = [await signIn(url, trader), await signIn(url, idle)];
      await createVaults(hosted.daemon, trader, vaults, shared ? { faucet: faucetAt(shared.exchangeUrl) } : {});
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
