// The services of the daemon, built from their lower parts: trading, vaults, proposals, oracle and
// events. Kept apart from main.ts (processes, ports, start/stop) so each reads in one sitting.
import type { Logger } from "pino";
import type { AuthService } from "./auth/auth-service.js";
import type { Chain } from "./chain/chain.js";
import type { Config } from "./config.js";
import type { Store } from "./db/database.js";
import type { VaultEventRow } from "./db/schema-chain.js";
import * as vaultsRepo from "./db/vaults-repo.js";
import { createEventHub, type HubEvent } from "./events/event-hub.js";
import type { ExchangeAdapter } from "./exchange/types.js";
import type { RouteSpec } from "./http/route.js";
import { accountRoutes } from "./http/routes/account-routes.js";
import { authRoutes } from "./http/routes/auth-routes.js";
import { eventsRoute } from "./http/routes/events-route.js";
import { proposalRoutes } from "./http/routes/proposal-routes.js";
import { tradingRoutes } from "./http/routes/trading-routes.js";
import { vaultRoutes } from "./http/routes/vault-routes.js";
import type { SecretBox } from "./lib/secret-box.js";
import { createOracle } from "./oracle/oracle.js";
import { createAccountViews } from "./trading/account-views.js";
import { createAgentService } from "./trading/agent-service.js";
import { createReconciler } from "./trading/reconciler.js";
import { createTradingService } from "./trading/trading-service.js";
import type { VaultGate } from "./trading/vault-gate.js";
import { createProposalService } from "./vaults/proposal-service.js";
import type { VaultChainOps } from "./vaults/vault-chain.js";
import { createVaultService } from "./vaults/vault-service.js";

export interface ServiceDeps {
  config: Config;
  store: Store;
  exchange: ExchangeAdapter;
  chain: Chain;
  chainOps: VaultChainOps;
  auth: AuthService;
  box: SecretBox;
  clock: () => number;
  log: Logger;
}

export function composeServices(deps: ServiceDeps) {
  const { config, store, exchange, chain, chainOps, auth, box, clock, log } = deps;
  const { db } = store;
  const hub = createEventHub();

  // Stored events become live events: parties are attached so each stream filters without a query.
  const parties = new Map<string, { investor: string; trader: string }>();
  async function toHub(rows: VaultEventRow[]): Promise<HubEvent[]> {
    const out: HubEvent[] = [];
    for (const r of rows) {
      let p = parties.get(r.vault);
      if (!p) {
        const v = await vaultsRepo.findVault(db, r.vault);
        if (!v) continue;
        p = { investor: v.investor, trader: v.trader };
        parties.set(r.vault, p);
      }
      out.push({ id: r.id, vault: r.vault, type: r.type, time: r.time, data: JSON.parse(r.data), ...p });
    }
    return out;
  }
  const publish = (rows: VaultEventRow[]) => {
    toHub(rows).then(hub.publish, (err) => log.error({ err }, "cannot publish events"));
  };
  chain.indexer.onEvents(publish);

  const agents = createAgentService({ store, exchange, box, clock });
  const reconciler = createReconciler({ store, exchange, clock, log });
  // The vault gate is the vault service's; trading gets it through this late-bound indirection.
  const gate: VaultGate = {
    forTrade: (user, vault) => vaults.gate.forTrade(user, vault),
    forRead: (user, vault) => vaults.gate.forRead(user, vault),
  };
  const trading = createTradingService({
    store, exchange, agents, vaults: gate, reconciler, clock, log,
    slippageBps: Math.round(config.marketSlippage * 100), orderTtlMs: 30_000,
    onVaultOrder: (address) => {
      vaultsRepo.findVault(db, address)
        .then((v) => v && oracle.ingestFills(v))
        .catch((err) => log.warn({ vault: address, err: (err as Error).message }, "cannot record the order's fills yet; the oracle will"));
    },
  });
  const views = createAccountViews({ store, exchange, agents, accountFor: trading.accountFor, clock });
  const proposals = createProposalService({
    db, clock, log,
    chain: {
      chainId: chainOps.chainId, factory: chainOps.factory, createVault: chainOps.createVault,
      activeVaultFor: async (account) => (await vaultsRepo.activeVaultFor(db, account))?.address,
    },
  });
  const oracle = createOracle({
    store, exchange, chain: chainOps, clock, log, intervalMs: config.oracleInterval * 1000, publish,
    cancelOrders: async (v) => (await trading.flatten("oracle", { account: v.exchange_account }, v.address, { closePositions: false })).canceledOrders,
    closeExpired: async (v) => {
      await vaults.settle(v, "oracle");
    },
    upkeep: () => proposals.sweep(),
  });
  const vaults = createVaultService({
    store, chain: chainOps, oracle, trading, clock, log, staleAfterMs: config.staleAfter * 1000,
  });

  /** A vault just deployed gets its first reading at once, so it can trade without waiting a cycle. */
  const accept: typeof proposals.accept = async (user, id, signature) => {
    const row = await proposals.accept(user, id, signature);
    if (row.vault_address) await oracle.refresh(row.vault_address).catch((err) => log.warn({ err: (err as Error).message }, "first reading failed; the oracle retries"));
    return row;
  };

  const routes: RouteSpec[] = [
    ...authRoutes(auth, { onLogout: (sessionKey) => hub.endSession(sessionKey) }),
    ...accountRoutes({ exchange, agents }),
    ...tradingRoutes({ trading, views, agents }),
    ...proposalRoutes({ ...proposals, accept }),
    ...vaultRoutes({ vaults, views }),
    eventsRoute({
      hub,
      backlog: async (user, afterId) => toHub(await vaults.eventsAfter(user, afterId, 1_000)),
    }),
  ];
  return { hub, agents, reconciler, trading, vaults, proposals, oracle, routes };
}
