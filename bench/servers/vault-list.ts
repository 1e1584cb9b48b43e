// Daemon side of http-read: a daemon with `vaults` vaults all traded by one signed-in wallet.
import { Wallet } from "ethers";
import { createVaults, hostDaemon, signIn, type HostedDaemon } from "../lib/daemon-host.js";

export function serve() {
  let hosted: HostedDaemon | undefined;
  return {
    async start(vaults: number): Promise<{ url: string; token: string; body: unknown }> {
      hosted = await hostDaemon();
      const { url } = hosted.daemon;
      const trader = Wallet.createRandom();
      const token = await signIn(url, trader);
      await createVaults(hosted.daemon, trader, vaults);
      const res = await fetch(`${url}/api/vaults`, { headers: { Authorization: `Bearer ${token}` } });
      const body = (await res.json()) as { data: { vaults: unknown[] } };
      if (!res.ok || body.data.vaults.length !== vaults) throw new Error(`GET /api/vaults: ${res.status}, ${body.data?.vaults?.length} vaults`);
      return { url, token, body };
    },
    close: () => hosted?.close(),
  };
}
