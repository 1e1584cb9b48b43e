// scale-out, the order path by store: order-path's POST /api/trade (lib/order-legs.ts) through a
// daemon on SQLite and through one on PostgreSQL (a database of its own), both reaching the same
// remote sim and the same Anvil, each with an operator key of its own, so only the store differs;
// and the same order straight to the sim (the baseline of order-path's overhead). The legs take
// turns order by order; each run has fresh traders (an empty book, as order-path).
import { HttpTransport } from "@nktkas/hyperliquid";
import { join } from "node:path";
import { httpClient, timeRotated } from "./lib/load.js";
import { operatorKeyFile, SECRET, type SharedParts } from "./lib/cluster-rig.js";
import { btcAssetOf, orderToSim, orderViaDaemon, remoteDirectKey, remoteTrader } from "./lib/order-legs.js";
import { summarize, type LatencySummary } from "./lib/stats.js";
import { startTradevaultd, type Tradevaultd } from "./lib/tradevaultd.js";

export interface OrdersSize {
  orders: number;
  runs: number;
  warmup: number;
}

export interface OrdersByStore {
  direct: LatencySummary[];
  sqlite: LatencySummary[];
  /** Empty without PostgreSQL. */
  postgres: LatencySummary[];
  peakRssKb: number;
}

async function storeDaemon(parts: SharedParts, name: string, databaseUrl?: string): Promise<Tradevaultd> {
  const key = await operatorKeyFile(parts.node, parts.dir, `${name}-operator`);
  return startTradevaultd([
    "--data-dir", join(parts.dir, name), "--rpc-url", parts.node.url!, "--chain-id", "31337", "--exchange-url", parts.simUrl,
    "--operator-key-file", key, "--oracle-interval", "60", "--no-price-stream",
    "--sign-in-rate-limit", "1000000000", "--order-rate-limit", "1000000000", "--log-level", "warn",
    "--read-weight-per-user", "1000000000", "--read-weight-all-users", "1000000000",
    ...(databaseUrl ? ["--database-url", databaseUrl] : []),
  ], { env: databaseUrl ? { TRADEVAULT_SECRET: SECRET } : {} });
}

export async function ordersByStore(parts: SharedParts, postgresUrl: string | undefined, size: OrdersSize): Promise<OrdersByStore> {
  const daemons: Tradevaultd[] = [];
  try {
    daemons.push(await storeDaemon(parts, "orders-sqlite"));
    if (postgresUrl) daemons.push(await storeDaemon(parts, "orders-postgres", postgresUrl));
    const transport = new HttpTransport({ apiUrl: parts.simUrl, isTestnet: true });
    const btc = await btcAssetOf(parts.simUrl);
    const clients = daemons.map((d) => httpClient(d.url));
    const out: OrdersByStore = { direct: [], sqlite: [], postgres: [], peakRssKb: 0 };
    for (let r = 0; r < size.runs; r++) {
      const tokens = await Promise.all(daemons.map((d) => remoteTrader(d.url, parts.simUrl)));
      const legs = [orderToSim(transport, await remoteDirectKey(parts.simUrl), btc), ...tokens.map((t, i) => orderViaDaemon(clients[i]!, t))];
      await timeRotated(legs, size.warmup);
      const [direct, sqlite, postgres] = await timeRotated(legs, size.orders);
      out.direct.push(summarize(direct!));
      out.sqlite.push(summarize(sqlite!));
      if (postgres) out.postgres.push(summarize(postgres));
    }
    for (const c of clients) c.close();
    out.peakRssKb = Math.max(...daemons.map((d) => d.peakRssKb()));
    return out;
  } finally {
    await Promise.all(daemons.map((d) => d.stop()));
  }
}
