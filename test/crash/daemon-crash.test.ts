// Crash safety of the whole daemon: the built `tradevaultd` (embedded sim and Anvil chain, an oracle
// cycle a second, snapshots and compactions as often as the config allows) is SIGKILLed at random
// points while the oracle writes and a vault closes, and started again on the same data directory.
// Whatever the API acknowledged before a kill (every vault event it listed, every close it answered
// 200) is still there afterwards, the contracts' state read straight from the chain and the API
// agree, the Anvil child never outlives its daemon, and the oracle goes on writing. Then Anvil alone
// is killed under the running daemon, which must bring the chain back from snapshot and journal.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { httpClient } from "../helpers/daemon.js";
import type { HttpClient } from "../helpers/daemon.js";
import { testSeed } from "../helpers/seed.js";
import { tempDir, waitUntil } from "../helpers/util.js";
import { usdcToBaseUnits } from "../../daemon/vaults/units.js";
import { alive, anvilOf, descendants, startDaemonProcess } from "./_daemon-process.js";
import type { DaemonProcess } from "./_daemon-process.js";
import { chainInfo, chainState, chainTokens, faucetOver, listEvents, partyOver, vaultDetailOver, vaultOver } from "./_daemon-user.js";
import type { ListedEvent, Party } from "./_daemon-user.js";

const tmp = tempDir("tradevault-daemon-crash-");
let d: DaemonProcess | undefined;
let http: HttpClient;
/** The Anvil-alone test runs on the daemon the crash test leaves running, healthy. */
let crashTestPassed = false;

/** Vault address -> its investor (each vault trades on its own investor's sim account). */
const investorOf = new Map<string, Party>();
let trader: Party;
const vaults = () => [...investorOf.keys()];

/** Every event the API listed, by id: what a kill must not take back. */
const acked = new Map<number, ListedEvent & { vault: string }>();
/** Closes answered 200, with the answer. */
const closes = new Map<string, { finalBalance: string }>();
/** Someone who takes 1 test USDC from the faucet again and again: each answer is a mint acknowledged. */
let pumper: Party;
const faucets = { answered: 0, killedInFlight: 0 };
/** How long the answered close took, so that the next kill can land inside one. */
let closeMs = 1000;

/** Each daemon's log, for the summary TEST_DEBUG=1 prints (what the restarts did). */
const logs: string[] = [];
const debug = (line: string) => process.env.TEST_DEBUG && console.log(line);
const logged = (msg: string) => logs.join("").split("\n").filter((l) => l.includes(msg)).length;

/** The running daemon's warnings and errors (last few), for the note a slow wait prints. */
function problems(): string {
  const lines = (d?.log() ?? "").split("\n").filter((l) => /"level":(40|50|60)/.test(l));
  return lines.length ? `\n--- the daemon's last warnings and errors ---\n${lines.slice(-8).join("\n").slice(-4000)}` : "";
}

/** Where each kill lands and what the price moves to; a failure names the seed (TEST_SEED replays it). */
const seeded = testSeed("daemon-crash");
const random = seeded.int;
/** A pause of random length: where the kill lands, not a wait for anything. */
const jitter = (maxMs: number) => new Promise((r) => setTimeout(r, random(0, maxMs)));

test.after(async () => {
  if (d) logs.push(d.log());
  debug(`acknowledged events: ${acked.size}, closes: ${[...closes.keys()].join(" ")}; ` +
    ["journal replayed", "snapshot loaded", "snapshot refused", "chain snapshot unusable", "embedded chain compacted", "exited unexpectedly", "embedded chain restarted"]
      .map((m) => `${m}: ${logged(m)}`).join(", "));
  const tree = d ? descendants(d.pid) : [];
  await d?.kill();
  // Should a broken rule leave them behind (the test has failed then), they go too.
  for (const p of [...tree, ...outlived]) if (alive(p.pid)) process.kill(p.pid, "SIGKILL");
  if (process.env.TEST_KEEP_DATA) console.log(`data directory kept: ${tmp.path}`);
  else tmp.remove();
});

async function start(): Promise<void> {
  d = await startDaemonProcess(tmp.path);
  http = httpClient(d.url);
}

/** Lists every vault's events and records them as acknowledged; returns how many BalanceUpdated there are. */
async function acknowledge(): Promise<number> {
  let updates = 0;
  for (const vault of vaults()) {
    for (const e of (await listEvents(http, trader, vault)).events) {
      acked.set(e.id, { ...e, vault });
      if (e.type === "BalanceUpdated") updates++;
    }
  }
  return updates;
}

/** Waits until the API has listed `n` more BalanceUpdated events than now (all acknowledged). */
async function oracleWrites(n: number): Promise<void> {
  const target = (await acknowledge()) + n;
  await waitUntil(async () => (await acknowledge()) >= target, { slowMs: 60_000, intervalMs: 100, what: () => `${n} more balance updates listed${problems()}` });
}

/** Children of a killed daemon, until they are seen gone. */
const outlived: Array<{ pid: number }> = [];

/** SIGKILLs the daemon and checks that its watchdog and Anvil end with it. */
async function crash(): Promise<void> {
  const tree = descendants(d!.pid);
  // None only when the kill lands inside a compaction, between the old node's stop and the new one's start.
  const anvil = anvilOf(d!.pid);
  if (!anvil) debug("killed between two Anvils (inside a compaction)");
  outlived.push(...tree);
  await d!.kill();
  logs.push(d!.log());
  await waitUntil(() => tree.every((p) => !alive(p.pid)), {
    slowMs: 20_000, what: `the daemon's children (${tree.map((p) => p.pid).join(", ")}, Anvil ${anvil?.pid ?? "none"}) to end with it`,
  });
  outlived.length = 0;
}

async function setUp(): Promise<void> {
  trader = await partyOver(http);
  pumper = await partyOver(http);
  for (let i = 0; i < 4; i++) {
    const investor = await partyOver(http, { usdc: "10000", agent: true });
    investorOf.set(await vaultOver(http, investor, trader), investor);
  }
  // Positions on two vaults, so that moving the price moves their balances (and a close flattens one).
  const [a, b] = vaults();
  for (const vault of [a!, b!]) {
    await waitUntil(async () => (await vaultDetailOver(http, trader, vault)).lastBalanceUpdate !== null, {
      slowMs: 60_000, intervalMs: 100, what: `a first reading of ${vault}`,
    });
    const r = await http.post("/api/trade", { symbol: "BTC", side: "buy", size: 0.01, vaultAddress: vault }, { token: trader.token });
    assert.is(r.status, 200, JSON.stringify(r.body));
  }
}

/**
 * Faucet calls one after another (each mints on-chain: one block) until the chain has grown by more
 * than the 100 blocks between compactions, then the kill at a random point around the compaction.
 */
async function pumpAcrossCompaction(): Promise<void> {
  const base = (await chainInfo(d!.url)).height ?? 0;
  let stop = false;
  const client = http; // this daemon's: the loop ends with it
  const pump = (async () => {
    while (!stop) {
      await faucetOver(client, pumper, "1");
      faucets.answered++;
    }
  })();
  pump.catch(() => undefined);
  await waitUntil(async () => ((await chainInfo(d!.url)).height ?? 0) >= base + 100, { slowMs: 60_000, intervalMs: 100, what: "100 blocks of mints" });
  await jitter(2500);
  await acknowledge();
  faucets.killedInFlight++;
  await crash();
  stop = true;
}

async function movePrice(): Promise<void> {
  const r = await http.post("/api/sim/price", { symbol: "BTC", price: String(random(55_000, 65_000)) }, { token: trader.token });
  assert.is(r.status, 200, JSON.stringify(r.body));
}

async function close(vault: string): Promise<void> {
  const t0 = Date.now();
  const r = await http.post(`/api/vaults/${vault}/close`, undefined, { token: investorOf.get(vault)!.token });
  closeMs = Date.now() - t0;
  assert.is(r.status, 200, JSON.stringify(r.body));
  closes.set(vault, { finalBalance: r.body.data.vault.finalBalance });
}

test("SIGKILLed at random points while the oracle writes and vaults close: what was acknowledged survives, chain and API agree", seeded.replayable(async () => {
  const rounds = 5;
  for (let round = 0; round < rounds; round++) {
    await start();
    if (round === 0) await setUp();
    await movePrice();
    await oracleWrites(random(1, 4));
    if (round === 2) {
      // Killed right after a close was answered.
      await close(vaults()[0]!);
      await jitter(300);
    } else if (round === 1 || round === 4) {
      await pumpAcrossCompaction();
      debug(`round ${round}: killed around a compaction (${faucets.answered} mints answered)`);
      continue;
    } else if (round === 3) {
      // Killed while a close is in flight (or just after its answer, which then counts).
      const inFlight = close(vaults()[3]!).catch(() => undefined);
      await jitter(closeMs);
      void inFlight;
      debug(`round 3: killed up to ${closeMs} ms into a close`);
    } else {
      await jitter(1000);
      await acknowledge();
    }
    await crash();
    debug(`round ${round}: killed with ${acked.size} events acknowledged, closes answered: ${closes.size}`);
  }
  await start();
  await waitUntil(async () => (await http.get("/healthz")).status === 200, { slowMs: 60_000, intervalMs: 200, what: () => `/healthz healthy after the last restart${problems()}` });
  assert.ok(closes.has(vaults()[0]!), "a close was answered");
  await assertAcknowledgedKept();
  await assertOracleWrites();
  await assertAgreement();
  crashTestPassed = true;
}));

/** Every acknowledged event is listed still, with the same id, place, type, transaction and data; the sequences are dense. */
async function assertAcknowledgedKept(): Promise<void> {
  for (const vault of vaults()) {
    const { events, total } = await listEvents(http, trader, vault);
    assert.is(events.length, total, `${vault}: every event of the sequence is listed`);
    events.forEach((e, i) => assert.is(e.seq, i + 1));
    for (let i = 1; i < events.length; i++) assert.ok(events[i]!.id > events[i - 1]!.id, `${vault}: ids grow with the sequence`);
    const byId = new Map(events.map((e) => [e.id, e]));
    for (const a of [...acked.values()].filter((x) => x.vault === vault)) {
      const now = byId.get(a.id);
      assert.ok(now, `acknowledged ${a.type} #${a.id} (seq ${a.seq}) of ${vault} is still listed`);
      const { vault: _v, ...before } = a;
      assert.equal(now, before, `acknowledged event #${a.id} of ${vault} unchanged`);
    }
  }
}

/** The oracle writes again after the restart: a BalanceUpdated newer than any acknowledged one. */
async function assertOracleWrites(): Promise<void> {
  const newest = Math.max(...acked.keys());
  const open = vaults().filter((v) => !closes.has(v));
  await waitUntil(async () => {
    for (const v of open) {
      if ((await listEvents(http, trader, v)).events.some((e) => e.type === "BalanceUpdated" && e.id > newest)) return true;
    }
    return false;
  }, { slowMs: 60_000, intervalMs: 200, what: () => `a new BalanceUpdated after the restart${problems()}` });
}

/** The newest acknowledged reading of each vault (its observedAt), 0 when none. */
const ackedReading = (vault: string) =>
  Math.max(0, ...[...acked.values()].filter((e) => e.vault === vault && e.type === "BalanceUpdated").map((e) => (e.data as { observedAt: number }).observedAt));

/**
 * The API against the contracts. The oracle keeps writing while we look (the chain a moment before
 * the database), so each vault is compared until one look finds both at the same reading; a real
 * disagreement never settles, and the wait's note shows the last look. A look that breaks a rule
 * for good (an acknowledged reading lost, a closed vault's final balance not the one answered) ends
 * the wait and fails at once.
 */
async function assertAgreement(): Promise<void> {
  const { rpcUrl: rpc, token } = await chainInfo(d!.url);
  const minted = (await chainTokens(rpc, token, pumper.address)) / 1_000_000n;
  assert.ok(minted >= faucets.answered, `every acknowledged mint kept: ${minted} of ${faucets.answered}`);
  assert.ok(minted <= faucets.answered + faucets.killedInFlight, `no mint twice: ${minted} for ${faucets.answered} answered`);
  for (const vault of vaults()) {
    let diff = "";
    const closed = closes.get(vault);
    const look = await waitUntil(async () => {
      const api = await vaultDetailOver(http, trader, vault);
      const chain = await chainState(rpc, vault);
      const mine = { balance: usdcToBaseUnits(api.currentBalance), observedAt: api.lastBalanceUpdate ?? 0, paused: api.paused, closed: api.closed };
      const theirs = { balance: chain.balance, observedAt: chain.observedAt, paused: chain.paused, closed: chain.closed };
      diff = JSON.stringify({ api: mine, chain: theirs }, (_k, v) => (typeof v === "bigint" ? v.toString() : v));
      const agree = mine.balance === theirs.balance && mine.observedAt === theirs.observedAt && mine.paused === theirs.paused && mine.closed === theirs.closed;
      const closeKept = !closed || (chain.closed && api.closed);
      const broken = chain.observedAt < ackedReading(vault) || (closed && chain.closed && chain.finalBalance !== usdcToBaseUnits(closed.finalBalance));
      return broken || (agree && closeKept) ? chain : undefined;
    }, { slowMs: 30_000, intervalMs: 50, what: () => `${vault}: API and chain to agree; last look: ${diff}` });
    assert.ok(look.observedAt >= ackedReading(vault), `the chain lost the acknowledged reading at ${ackedReading(vault)}: ${diff}`);
    if (closed) assert.is(look.finalBalance, usdcToBaseUnits(closed.finalBalance), `final balance of ${vault} as the close answered: ${diff}`);
  }
}

test("Anvil killed alone: the daemon brings the chain back from snapshot and journal, and the oracle goes on", seeded.replayable(async () => {
  assert.ok(crashTestPassed, "needs the healthy daemon the crash test leaves running");
  await oracleWrites(random(1, 3));
  await jitter(1000);
  await acknowledge();
  const anvil = anvilOf(d!.pid);
  assert.ok(anvil, "the daemon runs Anvil");
  process.kill(anvil.pid, "SIGKILL");
  await waitUntil(() => {
    const now = anvilOf(d!.pid);
    return now !== undefined && now.pid !== anvil.pid;
  }, { slowMs: 60_000, intervalMs: 100, what: "a new Anvil under the daemon" });
  assert.ok(d!.running(), "the daemon lives on");
  await waitUntil(async () => (await http.get("/healthz")).status === 200, { slowMs: 60_000, intervalMs: 200, what: () => `/healthz healthy after Anvil's restart${problems()}` });
  await assertAcknowledgedKept();
  await assertOracleWrites();
  await assertAgreement();
}));

test.run();
