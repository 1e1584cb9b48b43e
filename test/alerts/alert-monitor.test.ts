// The operator's alert monitor over a real store (a SQLite file, or PostgreSQL in the PostgreSQL pass,
// where the two monitors hold two connections as two daemons would): a shared condition seen by two
// daemons at once (a lease moving) is sent once, and only by a sender; a per-daemon condition is sent
// by each daemon about itself; a check that fails is not taken for a clear.
import { test } from "uvu";
import * as assert from "uvu/assert";
import pino from "pino";
import { openStore, type OpenedStore } from "../../daemon/db/database.js";
import { createAlertMonitor, type Condition, type Finding } from "../../daemon/monitor/alert-monitor.js";
import type { OperatorAlert } from "../../daemon/monitor/alert-sender.js";
import { openTestStore, storeKind, type TestStore } from "../helpers/stores.js";

const log = pino({ level: "silent" });
const clock = () => Date.now();

/** A condition whose findings the test sets; `broken` makes its check throw. */
function condition(name: string, scope: Condition["scope"]) {
  const c = { findings: [] as Finding[], broken: false };
  const spec: Condition = {
    name, scope,
    check: async () => {
      if (c.broken) throw new Error("cannot check");
      return c.findings;
    },
  };
  return Object.assign(c, { spec });
}

function monitor(store: OpenedStore, daemon: string, conditions: Condition[], isSender: () => boolean, sent: OperatorAlert[]) {
  return createAlertMonitor({ db: store.db, work: store, daemon, isSender, conditions, send: (a) => void sent.push(a), clock, log, intervalMs: 60_000 });
}

const brief = (sent: OperatorAlert[]) => sent.map((a) => `${a.key} ${a.state}${a.daemon ? ` @${a.daemon}` : ""}`);

let t: TestStore;
let second: OpenedStore;
test.before(async () => {
  t = await openTestStore();
  // One daemon per SQLite file: there the "second daemon" shares the connection (what it tests is the
  // claim in the table, which a second connection on PostgreSQL tests across connections too).
  second = storeKind === "postgres" ? await openStore(t.target) : t.store;
});
test.after(async () => {
  if (second !== t.store) await second.close();
  await t.close();
});

test("a shared condition seen by two daemons at once is sent once; a daemon that is not the sender does not check it", async () => {
  const sentA: OperatorAlert[] = [];
  const sentB: OperatorAlert[] = [];
  const gasA = condition("gas", "shared");
  const gasB = condition("gas", "shared");
  let bIsSender = true;
  const a = monitor(t.store, "a", [gasA.spec], () => true, sentA);
  const b = monitor(second, "b", [gasB.spec], () => bIsSender, sentB);
  const low: Finding = { key: "gas", title: "Operator gas low", text: "0.01 left" };
  gasA.findings = [low];
  gasB.findings = [low];
  await Promise.all([a.tick(), b.tick()]);
  await Promise.all([a.tick(), b.tick()]);
  // Either may win the claim; one of them sends.
  assert.equal([...brief(sentA), ...brief(sentB)], ["gas firing"]);
  // B lost the sender's lease: the condition clears, and only A (the sender) says so.
  bIsSender = false;
  gasA.findings = [];
  gasB.findings = [];
  await Promise.all([a.tick(), b.tick()]);
  assert.equal(brief(sentA).filter((x) => x.endsWith("cleared")), ["gas cleared"]);
  assert.equal([...brief(sentA), ...brief(sentB)].sort(), ["gas cleared", "gas firing"]);
  // What only the non-sender would see of a shared condition is not its to check or send.
  gasB.findings = [{ key: "gas:other", title: "Operator gas low", text: "seen by b" }];
  await b.tick();
  assert.equal([...brief(sentA), ...brief(sentB)].sort(), ["gas cleared", "gas firing"]);
});

test("a per-daemon condition is sent by each daemon about itself, and cleared by each", async () => {
  const sentA: OperatorAlert[] = [];
  const sentB: OperatorAlert[] = [];
  const oracleA = condition("oracle", "daemon");
  const oracleB = condition("oracle", "daemon");
  const a = monitor(t.store, "a", [oracleA.spec], () => true, sentA);
  const b = monitor(second, "b", [oracleB.spec], () => false, sentB);
  oracleA.findings = [{ key: "oracle:a", title: "Oracle unhealthy", text: "a: no cycle" }];
  oracleB.findings = [{ key: "oracle:b", title: "Oracle unhealthy", text: "b: no cycle" }];
  await Promise.all([a.tick(), b.tick()]);
  await Promise.all([a.tick(), b.tick()]);
  assert.equal(brief(sentA), ["oracle:a firing @a"]);
  assert.equal(brief(sentB), ["oracle:b firing @b"]);
  oracleB.findings = [];
  await Promise.all([a.tick(), b.tick()]);
  assert.equal(brief(sentB), ["oracle:b firing @b", "oracle:b cleared @b"]);
  assert.equal(brief(sentA), ["oracle:a firing @a"]);
});

test("a check that fails leaves its alert firing; the next check that finds nothing clears it", async () => {
  const sent: OperatorAlert[] = [];
  const chain = condition("chain", "daemon");
  const m = monitor(t.store, "c", [chain.spec], () => true, sent);
  chain.findings = [{ key: "chain:c", title: "Chain unreachable", text: "c cannot reach the chain" }];
  await m.tick();
  chain.findings = [];
  chain.broken = true;
  await m.tick();
  assert.equal(brief(sent), ["chain:c firing @c"]);
  chain.broken = false;
  await m.tick();
  assert.equal(brief(sent), ["chain:c firing @c", "chain:c cleared @c"]);
  assert.match(sent[1]!.text, "it was: c cannot reach the chain");
});

test.run();
