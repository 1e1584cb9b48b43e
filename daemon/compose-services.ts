// The services of the daemon, built in dependency order from their lower parts: the webhook deliveries
// and the live events, trading, the vault balances, enforcement and the vault service, the gate and
// the order desk, proposals, the oracle loop, then the rest. Each service gets what is already built;
// the one subscription is the live events' to the indexer's stored rows (onChainEvents). Kept apart
// from main.ts (processes, ports, start/stop) so each reads in one sitting.
import type { Logger } from "pino";
import type { AuthService } from "./auth/auth-service.js";
import type { Config } from "./config.js";
import type { Store } from "./db/store.js";
import { unpackEventData } from "./db/event-data.js";
import * as vaultsRepo from "./db/vaults-repo.js";
import type { VaultEventRow } from "./db/schema-chain.js";
import { createEventHub, type HubEvent } from "./events/event-hub.js";
import { createEventTail } from "./events/event-tail.js";
import { watchStreamSessions } from "./events/stream-sessions.js";
import { EVENTS_CHANNEL } from "./db/notices.js";
import type { ExchangeAdapter } from "./exchange/types.js";
import { BACKGROUND_WEIGHT_PER_MINUTE } from "./exchange/weight-limiter.js";
import { readBudget } from "./exchange/read-budget.js";
import { createUserReads } from "./exchange/user-reads.js";
import type { SecretBox } from "./lib/secret-box.js";
import { createOracle } from "./oracle/oracle.js";
import { createAccountViews } from "./trading/account-views.js";
import { createAgentService } from "./trading/agent-service.js";
import { createOrderSync } from "./trading/order-sync.js";
import { createReconciler } from "./trading/reconciler.js";
import { createTradingService } from "./trading/trading-service.js";
import { createIdempotency } from "./trading/idempotency.js";
import { createOrderDesk } from "./vaults/order-desk.js";
import { createProposalService } from "./vaults/proposal-service.js";
import { createVaultBalances, oracleCapacity } from "./vaults/vault-balances.js";
import type { VaultChainOps } from "./vaults/vault-chain.js";
import { createVaultGate } from "./vaults/vault-gate.js";
import { createVaultService } from "./vaults/vault-service.js";
import { createVaultPerformance } from "./vaults/vault-performance.js";
import { createVaultVerification } from "./vaults/vault-verification.js";
import { createVaultExports } from "./vaults/vault-exports.js";
import { createAccountModes } from "./vaults/account-modes.js";
import { createDeadMan } from "./vaults/dead-man.js";
import { createEnforcement } from "./vaults/enforcement.js";
import { OPERATOR_PAUSE_ACCOUNT_MODE } from "./vaults/vault-chain.js";
import type { VaultShare } from "./vaults/vault-share.js";
import { createVaultWatch } from "./vaults/vault-watch.js";
import { createDeadlineNotices } from "./vaults/deadline-notices.js";
import { createAgentExpiry } from "./notices/agent-expiry.js";
import { createUserNotices } from "./notices/user-notices.js";
import { createStopKeeper } from "./vaults/stop-keeper.js";
import { accountsPerCycle, createForcedFillNotices, FORCED_FILLS_WEIGHT_PER_MINUTE } from "./notices/forced-fill-notices.js";
import { eventData } from "./vaults/vault-views.js";
import { createDeliveryWorker } from "./webhooks/delivery-worker.js";
import { daemonId } from "./shared-store.js";
import { createWebhookService } from "./webhooks/webhook-service.js";
import { noticeDeliveries } from "./webhooks/notice-deliveries.js";

export interface ServiceDeps {
  config: Config;
  store: Store;
  exchange: ExchangeAdapter;
  chainOps: VaultChainOps;
  /** Subscribes to event rows the chain module stored (indexer and receipt write-through). */
  onChainEvents(listener: (rows: VaultEventRow[]) => void): void;
  auth: AuthService;
  box: SecretBox;
  /** The vaults whose oracle work is this daemon's: all of them alone on a database, a leased share with others. */
  share: VaultShare;
  /** What a vault's verification reads the chain through, and the request budget its exchange reads take. */
  verifyVia: { rpcUrl: string; spend: (weight: number) => Promise<void> };
  clock: () => number;
  log: Logger;
}

/**
 * Stored events become live events, in id order: parties are attached so each stream filters without
 * a query. Alone on its store a daemon publishes its own commits as they happen; sharing the store,
 * every daemon publishes from a tail of the events table instead, so each stream sees every daemon's
 * events, in id order, once.
 */
function liveEvents(store: Store, log: Logger, onStored: () => void) {
  const hub = createEventHub();
  const parties = new Map<string, { investor: string; trader: string }>();
  async function toHub(rows: VaultEventRow[]): Promise<HubEvent[]> {
    const out: HubEvent[] = [];
    for (const r of rows) {
      let p = parties.get(r.vault);
      if (!p) {
        const v = await vaultsRepo.findVault(store.db, r.vault);
        if (!v) continue;
        p = { investor: v.investor, trader: v.trader };
        parties.set(r.vault, p);
      }
      out.push({ id: r.id, vault: r.vault, type: r.type, time: r.time, data: eventData(r.type, unpackEventData(r.type, r.data)), ...p });
    }
    return out;
  }
  // One after another: a publish that waits for a parties lookup must not be overtaken by a later one.
  let queue: Promise<void> = Promise.resolve();
  const deliver = (rows: VaultEventRow[]) => {
    if (rows.length === 0) return;
    onStored();
    queue = queue.then(() => toHub(rows)).then(hub.publish, (err) => log.error({ err }, "cannot publish events"));
  };
  if (store.kind !== "postgres") return { hub, toHub, publish: deliver, tail: undefined };
  const tail = createEventTail({
    lastId: () => vaultsRepo.lastEventId(store.db),
    after: (afterId, limit) => vaultsRepo.eventsAfterId(store.db, afterId, limit),
    deliver,
    onError: (err) => log.warn({ err }, "reading new events failed; the next poll tries again"),
    pollMs: 1_000,
  });
  // Another daemon's commit wakes the tail at once; the poll covers a notice lost while reconnecting.
  store.listen(EVENTS_CHANNEL, () => tail.poke());
  return { hub, toHub, publish: (rows: VaultEventRow[]) => void (rows.length > 0 && tail.poke()), tail };
}

/** The exchange reads users' requests cause, kept per account and within the users' budgets (config.ts checks they leave the oracle its share). */
function userReads(config: Config, exchange: ExchangeAdapter, clock: () => number) {
  const budget = readBudget({ perUser: config.readWeightPerUser, allUsers: config.readWeightAllUsers, clock });
  return createUserReads({ exchange, budget, ttlMs: config.readCache * 1000, clock });
}

export function composeServices(deps: ServiceDeps) {
  const { config, store, exchange, chainOps, auth, box, share, clock, log } = deps;
  const { db } = store;
  // Outbox rows are written with their event; any stored event (any daemon's, as the streams see them) wakes the sender.
  const deliveries = createDeliveryWorker({
    store, box, clock, log, allowPrivate: config.webhooksAllowPrivate,
    daemon: store.kind === "postgres" ? daemonId(config.dataDir) : undefined,
  });
  const live = liveEvents(store, log, () => deliveries.wake());
  deps.onChainEvents(live.publish);

  const reads = userReads(config, exchange, clock);
  const agents = createAgentService({ db, exchange, reads, box, clock });
  const reconciler = createReconciler({ db, work: store, exchange, clock, log });
  const orderSync = createOrderSync({ db, exchange, clock, log });
  const trading = createTradingService({
    db, work: store, exchange, agents, reconciler, orderSync, reads, clock, log,
    slippageBps: Math.round(config.marketSlippage * 100), orderTtlMs: 30_000,
  });
  const views = createAccountViews({ exchange, reads, agents, orderSync });
  const balances = createVaultBalances({ db, work: store, exchange, chain: chainOps, clock, log, publish: live.publish });
  const modes = createAccountModes({
    db, balances, clock, log,
    readMode: (account) => exchange.accountMode(account, { priority: "background" }),
    pause: (vault) => chainOps.pauseVault(vault, OPERATOR_PAUSE_ACCOUNT_MODE),
  });
  const deadMan = config.deadManSeconds === undefined ? undefined : createDeadMan({
    seconds: config.deadManSeconds, clock, log,
    signerFor: (account) => agents.signerFor(account),
    scheduleCancel: (agent, timeMs) => exchange.scheduleCancel(agent, timeMs),
  });
  const enforcement = createEnforcement({
    db, work: store, exchange, trading, reconciler, publish: live.publish, recordFills: balances.recordFills, clock, log,
    intervalMs: config.oracleInterval * 1000, share,
  });
  const vaults = createVaultService({ db, changeKey: store.changeKey, chain: chainOps, balances, views, enforcement, modes, deadMan, share, exclusive: store.exclusive, clock, log });
  const gate = createVaultGate({ db, balances, refresh: vaults.refresh, clock, staleAfterMs: config.staleAfter * 1000 });
  // Notices to one user (ProposalSigned, an agent key expiring, an account's stop); the webhooks outbox is its sink (below).
  // Notices addressed to one user reach their webhooks through the same outbox, in the notice's transaction.
  const notices = createUserNotices({ db, clock, sinks: [noticeDeliveries(clock)] });
  const stops = createStopKeeper({ db, work: store, exchange, trading, reconciler, notices, publish: live.publish, clock, log });
  const desk = createOrderDesk({ trading, idempotency: createIdempotency({ db }), views, gate, balances, stops });
  const watch = createVaultWatch({
    db, changeKey: store.changeKey, balances, refresh: vaults.refresh, share, clock, log, marginBps: Math.round(config.breachMargin * 100),
  });
  const proposals = createProposalService({
    db, work: store, notices, clock, log, exclusive: store.exclusive,
    chainId: chainOps.chainId, factory: chainOps.factory, createVault: chainOps.createVault,
    activeVaultFor: async (account) => (await vaultsRepo.activeVaultFor(db, account))?.address,
    accountValue: async (account, caller) => (await reads.as(caller).accountState(account)).accountValue,
    firstReading: (vault) => vaults.refresh(vault, { first: true }),
    assertAccountValued: (account, caller) => modes.assertValued(account, (a) => reads.as(caller).accountMode(a)),
  });
  const deadlines = createDeadlineNotices({ db, work: store, share, publish: live.publish, clock });
  const agentExpiry = createAgentExpiry({ db, work: store, notices, clock });
  const forcedFills = createForcedFillNotices({
    db, work: store, notices, clock, log, fills: (account, since, o) => exchange.fills(account, since, o),
    perSweep: exchange.kind === "sim" ? undefined : accountsPerCycle(config.oracleInterval * 1000),
  });
  const oracle = createOracle({
    poll: vaults.poll,
    probe: () => exchange.mids(),
    upkeep: async () => {
      await proposals.sweep();
      // Notices are not the oracle's health: one that cannot be written now is tried next cycle.
      await deadlines.sweep().catch((err) => log.warn({ err: (err as Error).message }, "recording DeadlineApproaching failed; the next cycle tries again"));
      await agentExpiry.sweep().catch((err) => log.warn({ err: (err as Error).message }, "recording agent key notices failed; the next cycle tries again"));
      await forcedFills.sweep().catch((err) => log.warn({ err: (err as Error).message }, "reading own accounts' forced fills failed; the next cycle tries again"));
    },
    clock, log, intervalMs: config.oracleInterval * 1000,
    // Users' reads take at most --read-weight-all-users of the background budget, the forced-fill notices
    // their own share: the rest is the oracle's.
    capacity: exchange.kind === "sim" ? undefined : oracleCapacity(config.oracleInterval * 1000, Math.max(0, BACKGROUND_WEIGHT_PER_MINUTE - FORCED_FILLS_WEIGHT_PER_MINUTE - config.readWeightAllUsers)),
  });

  const webhooks = createWebhookService({ db, work: store, box, worker: deliveries, clock, allowPrivate: config.webhooksAllowPrivate });

  const exports = createVaultExports({ db });
  const performance = createVaultPerformance({ db, reads });
  const verification = createVaultVerification({
    db, work: store, rpcUrl: deps.verifyVia.rpcUrl, exchangeUrl: exchange.url, spend: deps.verifyVia.spend, clock,
    budget: reads.budget, ttlMs: config.readCache * 1000,
    // The order sync passes once an oracle interval: a row may lag the venue up to two of them.
    orderLagMs: 2 * config.oracleInterval * 1000,
  });
  /** An event stream's catch-up: the stored events after the client's last id, as live events. */
  const eventBacklog = async (user: string, afterId: number) => live.toHub(await vaults.eventsAfter(user, afterId, 1_000));
  // A stream ends within a second of its session ending anywhere (a logout on another daemon, an expiry).
  const streamSessions = watchStreamSessions({ hub: live.hub, liveSessions: auth.liveSessions, everyMs: 1_000, log });
  return {
    auth, hub: live.hub, streamSessions, eventTail: live.tail, eventBacklog, deliveries, webhooks, agents, views, reconciler, orderSync, stops, trading, desk,
    enforcement, vaults, exports, performance, verification, watch, proposals, notices, oracle, deadMan,
  };
}
