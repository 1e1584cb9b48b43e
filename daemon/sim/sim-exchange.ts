// The sim exchange as one object: options in, { url, start, stop, faucet, withdraw, setPrice,
// deleverage, tick, faults, requests } out. start() opens the SQLite file (state survives a restart with the same dbPath),
// seeds missing marks, listens (127.0.0.1 by default; HTTP and the WebSocket at /ws on one port) and
// starts the price feed timer. Price moves reach WebSocket subscribers after their transaction commits.
import { isAddress } from "ethers";
import { isDecimalString, toDecimalString } from "../lib/decimal.js";
import { DEFAULT_AGENT_POLICY, type AgentPolicy } from "./agents.js";
import { ControlInputError, handleControl } from "./controls.js";
import { DEFAULT_BOOK, type BookConfig } from "./engine/book.js";
import { armedUsers, fireScheduledCancels, settleFunding } from "./engine/clock-jobs.js";
import { createEngineCtx, type EngineCtx } from "./engine/context.js";
import { DEFAULT_FEES, type FeeSchedule } from "./engine/fills.js";
import { moveMarks, type MarkMoveResult } from "./engine/marks.js";
import { handleExchange } from "./exchange.js";
import { FaultQueue } from "./faults.js";
import { createFeed, type PriceFeed, type PriceFeedConfig } from "./feed.js";
import { handleInfo } from "./info.js";
import { DEFAULT_MARKETS, MarketList } from "./markets.js";
import { DEFAULT_NONCE_POLICY, type NoncePolicy } from "./nonces.js";
import { F } from "./num.js";
import { SimHttpServer, type RequestLogEntry } from "./server.js";
import { DEFAULT_WS_LIMITS, SimWsServer, type WsLimits } from "./ws.js";
import { SimStreams } from "./ws-channels.js";
import { createPostHandler } from "./ws-post.js";
import { SimEvents, type SimEventListener } from "./sim-events.js";
import { openDb, type Db } from "./store/db.js";
import { SimRepo } from "./store/repo.js";
import { faucetCredit, withdrawal, type FaucetResult, type WithdrawalResult } from "./usdc-controls.js";
import { deleverage, type AdlResult } from "./adl-control.js";
import { WeightCounter, type UserWeight, type WeightTotals } from "./weights.js";
export type { FaucetResult, WithdrawalResult } from "./usdc-controls.js";
export type { AdlResult } from "./adl-control.js";
import { silentLogger, type Market, type MarketSpec, type Network, type SimLogger } from "./types.js";

export interface SimExchangeOptions {
  /** Listen address; keep the default (loopback) unless you know why. */
  host?: string;
  /** 0 = any free port. */
  port?: number;
  /** SQLite file, or ":memory:". */
  dbPath: string;
  network?: Network;
  priceFeed?: PriceFeedConfig;
  /** Called before a faucet credit with the amount in USDC base units (6 decimals); a throw cancels it. */
  onFaucet?: (user: string, amountBaseUnits: bigint) => Promise<void>;
  clock?: () => number;
  logger?: SimLogger;
  markets?: readonly MarketSpec[];
  fees?: Partial<FeeSchedule>;
  book?: Partial<BookConfig>;
  defaultLeverage?: number;
  nonces?: Partial<NoncePolicy>;
  agents?: Partial<AgentPolicy>;
  /** Largest single faucet credit in USDC (decimal text; default 1 000 000). */
  maxFaucetUsd?: string;
  requestLogLimit?: number;
  /** WebSocket limits per remote address (default: the venue's 10 connections, 1000 subscriptions, 10 users). */
  ws?: Partial<WsLimits>;
  /** Hourly funding rate as a decimal fraction (default "0": no funding; the venue's floor is "0.0000125"). */
  fundingRate?: string;
  /** Traded volume in USD an account needs to arm scheduleCancel (default "1000000" as on the venue; "0" lets anyone). */
  scheduleCancelMinVolumeUsd?: string;
  /** Period of the timer that settles funding and fires scheduled cancels (default 1000 ms). */
  housekeepingMs?: number;
  /** Whether a whole-position reduce-only order below the minimum is accepted (default true; see docs/sim.md "Dust closes"). */
  dustClosesExempt?: boolean;
}

export interface SimExchange {
  /** Base URL for HttpTransport's apiUrl (no path), known once started. */
  readonly url: string;
  readonly port: number;
  readonly network: Network;
  readonly markets: readonly Market[];
  start(): Promise<void>;
  stop(): Promise<void>;
  faucet(user: string, amount: string | number): Promise<FaucetResult>;
  /** Takes USDC out of the perp account as a bridge withdrawal would (same as POST /sim/withdraw). */
  withdraw(user: string, amount: string | number): WithdrawalResult;
  setPrice(symbol: string, price: string | number): MarkMoveResult;
  /** Auto-deleverages `size` (default: all) of a position at the mark (same as POST /sim/adl). */
  deleverage(user: string, symbol: string, size?: string | number): AdlResult;
  /** Advances the price feed by `steps` ticks right now (also works for a timer-less feed). */
  tick(steps?: number): MarkMoveResult;
  mark(symbol: string): string;
  /** Sets what userAbstraction reports for a user (the sim always trades in the standard mode). */
  setAbstraction(user: string, mode: string): { user: string; abstraction: string };
  /**
   * Request weight as the venue weighs it, since start: one user's (the `user` of /info requests, the
   * signer of /exchange actions; same as GET /sim/weight?user=), or every request's without a user.
   */
  weight(): WeightTotals;
  weight(user: string): UserWeight;
  /** Switches the uncertain dust-close rule at run time (tests of a venue that refuses dust). */
  setDustClosesExempt(exempt: boolean): void;
  readonly faults: FaultQueue;
  /** Listens to what the engine publishes after each commit (sim-events.ts); returns the remover. */
  onEvent(listener: SimEventListener): () => void;
  readonly requests: readonly RequestLogEntry[];
  clearRequests(): void;
}

interface Running {
  db: Db;
  ctx: EngineCtx;
  feed: PriceFeed;
  server: SimHttpServer;
  ws: SimWsServer;
  streams: SimStreams;
  port: number;
  timer?: NodeJS.Timeout;
  housekeeping?: NodeJS.Timeout;
}

export function createSimExchange(options: SimExchangeOptions): SimExchange {
  return new SimExchangeImpl(options);
}

class SimExchangeImpl implements SimExchange {
  readonly network: Network;
  readonly markets: readonly Market[];
  readonly faults = new FaultQueue();
  private readonly weights = new WeightCounter();
  private readonly list: MarketList;
  private readonly now: () => number;
  private readonly logger: SimLogger;
  private readonly nonces: NoncePolicy;
  private readonly agents: AgentPolicy;
  private readonly maxFaucet: bigint;
  private running: Running | undefined;
  private log: RequestLogEntry[] = [];

  constructor(private readonly options: SimExchangeOptions) {
    this.network = options.network ?? "Testnet";
    this.list = new MarketList(options.markets ?? DEFAULT_MARKETS);
    this.markets = this.list.all;
    this.now = options.clock ?? Date.now;
    this.logger = options.logger ?? silentLogger;
    this.nonces = { ...DEFAULT_NONCE_POLICY, ...options.nonces };
    this.agents = { ...DEFAULT_AGENT_POLICY, ...options.agents };
    this.maxFaucet = F.parse(options.maxFaucetUsd ?? "1000000");
  }

  get url(): string {
    return `http://${urlHost(this.options.host ?? "127.0.0.1")}:${this.live().port}`;
  }

  get port(): number {
    return this.live().port;
  }

  get requests(): readonly RequestLogEntry[] {
    return this.log;
  }

  clearRequests(): void {
    this.log.splice(0, this.log.length);
  }

  onEvent(listener: SimEventListener): () => void {
    return this.live().ctx.events.on(listener);
  }

  private live(): Running {
    if (!this.running) throw new Error("the sim exchange is not started");
    return this.running;
  }

  async start(): Promise<void> {
    if (this.running) throw new Error("the sim exchange is already started");
    const db = openDb(this.options.dbPath);
    try {
      this.running = await this.boot(db);
    } catch (e) {
      db.close();
      throw e;
    }
    const { feed, port } = this.running;
    if (feed.intervalMs) this.running.timer = setInterval(() => this.safeTick(), feed.intervalMs).unref();
    this.running.housekeeping = setInterval(() => this.safeHousekeeping(), this.options.housekeepingMs ?? 1000).unref();
    this.logger.info({ port, network: this.network, dbPath: this.options.dbPath }, "sim exchange listening");
  }

  private async boot(db: Db): Promise<Running> {
    const ctx = createEngineCtx(new SimRepo(db), this.list, {
      fees: { ...DEFAULT_FEES, ...this.options.fees },
      book: { ...DEFAULT_BOOK, ...this.options.book },
      defaultLeverage: this.options.defaultLeverage ?? 20,
      minOrderValueUsd: "10",
      dustClosesExempt: this.options.dustClosesExempt ?? true,
      fundingRate: checkedDecimal(this.options.fundingRate ?? "0", "fundingRate", true),
      scheduleCancelMinVolumeUsd: checkedDecimal(this.options.scheduleCancelMinVolumeUsd ?? "1000000", "scheduleCancelMinVolumeUsd", false),
    }, this.now, new SimEvents((err) => this.logger.error({ err }, "a sim event listener failed; the others were told")));
    const feed = createFeed(this.options.priceFeed ?? { kind: "random-walk", seed: 1 }, this.list, ctx.repo);
    this.seedMarks(ctx, feed);
    const streams = new SimStreams(ctx, this.logger);
    const exchangeDeps = { ctx, network: this.network, nonces: this.nonces, agents: this.agents, weights: this.weights };
    const post = createPostHandler({ info: (b) => this.info(ctx, b), exchange: (b) => handleExchange(exchangeDeps, b) });
    const ws = new SimWsServer(streams.channels, { ...DEFAULT_WS_LIMITS, ...this.options.ws }, this.logger, post);
    streams.attach(ws);
    const server = this.createServer(ctx, ws);
    this.log = server.requests;
    const port = await server.listen(this.options.host ?? "127.0.0.1", this.options.port ?? 0);
    return { db, ctx, feed, server, ws, streams, port };
  }

  async stop(): Promise<void> {
    const r = this.running;
    if (!r) return;
    this.running = undefined;
    if (r.timer) clearInterval(r.timer);
    if (r.housekeeping) clearInterval(r.housekeeping);
    await r.ws.close();
    await r.server.close();
    r.db.close();
  }

  private createServer(ctx: EngineCtx, ws: SimWsServer): SimHttpServer {
    const deps = { ctx, network: this.network, nonces: this.nonces, agents: this.agents, weights: this.weights };
    const target = {
      faucet: (user: string, amount: string | number) => this.faucet(user, amount),
      withdraw: (user: string, amount: string | number) => this.withdraw(user, amount),
      setPrice: (symbol: string, price: string | number) => this.setPrice(symbol, price),
      deleverage: (user: string, symbol: string, size?: string | number) => this.deleverage(user, symbol, size),
      setAbstraction: (user: string, mode: string) => this.setAbstraction(user, mode),
      weight: (user?: string) => (user === undefined ? this.weight() : this.weight(user)),
      faults: this.faults,
    };
    return new SimHttpServer({
      info: (body) => this.info(ctx, body),
      exchange: (body) => handleExchange(deps, body),
      control: (method, path, body, query) => handleControl(target, path, body, method, query),
      faults: this.faults,
      logger: this.logger,
      now: this.now,
      requestLogLimit: this.options.requestLogLimit ?? 1000,
      upgrade: (req, socket, head) => ws.handleUpgrade(req, socket, head),
    });
  }

  /** An /info answer, weighed once answered (a list's weight depends on its length). */
  private info(ctx: EngineCtx, body: unknown): unknown {
    const answer = handleInfo(ctx, body);
    this.weights.countInfo(body, answer);
    return answer;
  }

  weight(): WeightTotals;
  weight(user: string): UserWeight;
  weight(user?: string): WeightTotals | UserWeight {
    return user === undefined ? this.weights.all() : this.weights.of(user);
  }

  /** A fresh database starts from the feed's first prices or the markets' start prices. */
  private seedMarks(ctx: EngineCtx, feed: PriceFeed): void {
    const initial = feed.initial();
    ctx.tx(() => {
      for (const m of this.list.all) {
        if (ctx.repo.getMark(m.name) !== undefined) continue;
        ctx.repo.setMark(m.name, initial?.get(m.name) ?? F.parse(m.startPx), this.now());
      }
    });
  }

  tick(steps = 1): MarkMoveResult {
    const { ctx, feed, streams } = this.live();
    const out: MarkMoveResult = { filledOids: [], liquidated: [] };
    try {
      for (let i = 0; i < steps; i++) {
        const r = ctx.tx(() => moveMarks(ctx, feed.next(ctx.repo.allMarks())));
        out.filledOids.push(...r.filledOids);
        out.liquidated.push(...r.liquidated);
      }
    } finally {
      // Steps committed before a failing one still moved prices; subscribers hear of them once.
      streams.publishPrices();
    }
    this.housekeeping();
    return out;
  }

  /** Settles funding hours that have passed and fires due scheduled cancels. */
  private housekeeping(): void {
    const { ctx } = this.live();
    ctx.tx(() => {
      settleFunding(ctx);
      fireScheduledCancels(ctx, armedUsers(ctx));
    });
  }

  private safeHousekeeping(): void {
    try {
      this.housekeeping();
    } catch (e) {
      this.logger.error({ err: e }, "sim housekeeping failed");
    }
  }

  setDustClosesExempt(exempt: boolean): void {
    this.live().ctx.cfg.dustClosesExempt = exempt;
  }

  setAbstraction(user: string, mode: string): { user: string; abstraction: string } {
    if (typeof user !== "string" || !isAddress(user)) throw new ControlInputError(`bad user address ${String(user)}`);
    if (!ABSTRACTION_MODES.includes(mode)) throw new ControlInputError(`mode must be one of ${ABSTRACTION_MODES.join(", ")}`);
    const address = user.toLowerCase();
    this.live().ctx.repo.setMeta(`abstraction:${address}`, mode);
    return { user: address, abstraction: mode };
  }

  private safeTick(): void {
    try {
      this.tick();
    } catch (e) {
      this.logger.error({ err: e }, "sim price feed tick failed");
    }
  }

  setPrice(symbol: string, price: string | number): MarkMoveResult {
    const { ctx, streams } = this.live();
    if (!this.list.byCoin(symbol)) throw new ControlInputError(`unknown symbol ${symbol}`);
    let px: bigint;
    try {
      px = F.parse(toDecimalString(price));
    } catch {
      throw new ControlInputError(`bad price ${String(price)}`);
    }
    if (px <= 0n) throw new ControlInputError("price must be positive");
    const result = ctx.tx(() => moveMarks(ctx, new Map([[symbol, px]])));
    streams.publishPrices();
    return result;
  }

  deleverage(user: string, symbol: string, size?: string | number): AdlResult {
    return deleverage(this.live().ctx, user, symbol, size);
  }

  mark(symbol: string): string {
    const m = this.list.byCoin(symbol);
    if (!m) throw new ControlInputError(`unknown symbol ${symbol}`);
    return F.format(this.live().ctx.repo.getMark(symbol) ?? F.parse(m.startPx));
  }

  async faucet(user: string, amount: string | number): Promise<FaucetResult> {
    const { ctx } = this.live();
    return faucetCredit({ ctx, maxFaucet: this.maxFaucet, onFaucet: this.options.onFaucet, logger: this.logger }, user, amount);
  }

  withdraw(user: string, amount: string | number): WithdrawalResult {
    return withdrawal(this.live().ctx, user, amount);
  }
}

/** userAbstraction's answers (the venue's names); "disabled" is the standard account the sim models. */
export const ABSTRACTION_MODES = ["disabled", "default", "unifiedAccount", "portfolioMargin", "dexAbstraction"];

function checkedDecimal(text: string, name: string, signed: boolean): string {
  const body = signed && text.startsWith("-") ? text.slice(1) : text;
  if (!isDecimalString(body)) throw new Error(`sim option ${name}: not a decimal number: ${text}`);
  return text;
}

/** A wildcard listen address is reached through loopback; IPv6 literals need brackets. */
function urlHost(host: string): string {
  if (host === "0.0.0.0" || host === "::") return "127.0.0.1";
  return host.includes(":") ? `[${host}]` : host;
}
