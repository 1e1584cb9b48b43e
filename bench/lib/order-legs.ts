// The two ways order-path places one order, each a call to time: through a daemon (POST /api/trade)
// and straight to the sim with the SDK (the baseline). A resting bid far under the mark (60000):
// 0.001 BTC at 30000 is 30 USDC, over the 10 USDC minimum. Also the set-up of a trader on a daemon
// that reaches a remote sim (scale-out), where the faucet is the sim's HTTP control.
import { ExchangeClient, type HttpTransport } from "@nktkas/hyperliquid";
import { Wallet } from "ethers";
import { approveAgent, signIn, simFaucet } from "./daemon-host.js";
import type { Client } from "./load.js";

const PRICE = "30000";
const SIZE = "0.001";

export function orderViaDaemon(client: Client, token: string): () => Promise<void> {
  const body = { symbol: "BTC", side: "buy", size: SIZE, price: PRICE, tif: "GTC" };
  const auth = { Authorization: `Bearer ${token}` };
  return async () => {
    const r = await client.send("POST", "/api/trade", body, auth);
    if (r.status !== 200) throw new Error(`POST /api/trade: ${r.status} ${JSON.stringify(r.body)}`);
  };
}

export function orderToSim(transport: HttpTransport, key: string, btcAsset: number): () => Promise<void> {
  const exchange = new ExchangeClient({ transport, wallet: new Wallet(key) });
  return async () => {
    const r = await exchange.order({
      orders: [{ a: btcAsset, b: true, p: PRICE, s: SIZE, r: false, t: { limit: { tif: "Gtc" } } }],
      grouping: "na",
    });
    const status = r.response.data.statuses[0] as object;
    if (!("resting" in status)) throw new Error(`direct order did not rest: ${JSON.stringify(status)}`);
  };
}

/** A fresh trader on the daemon at `url`, funded on the sim and with its agent approved: the session. */
export async function remoteTrader(url: string, simUrl: string): Promise<string> {
  const trader = Wallet.createRandom();
  const token = await signIn(url, trader);
  await simFaucet(simUrl, trader.address, 1_000_000);
  await approveAgent(url, token, trader);
  return token;
}

/** A fresh funded sim account for the direct baseline: its key. */
export async function remoteDirectKey(simUrl: string): Promise<string> {
  const direct = Wallet.createRandom();
  await simFaucet(simUrl, direct.address, 1_000_000);
  return direct.privateKey;
}

/** The sim's asset index of BTC. */
export async function btcAssetOf(simUrl: string): Promise<number> {
  const res = await fetch(`${simUrl}/info`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ type: "meta" }) });
  const meta = (await res.json()) as { universe: Array<{ name: string }> };
  return meta.universe.findIndex((m) => m.name === "BTC");
}
