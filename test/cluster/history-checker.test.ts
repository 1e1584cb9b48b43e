// The history checker on small hand-made histories: each rule passes a good one and names what is
// wrong in one broken the way that rule guards against.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { checkStall, measureFault, percentile, TEST_STALL } from "./fault-measures.js";
import { checkAcknowledged, checkCalls, checkEvents, checkHistory, checkLeases, checkMined, checkSender, type History, type JournalEntry, type LeaseSample, type MinedTx } from "./history-checker.js";

const lease = (atMs: number, key: string, holder: string, epoch: number, expiresAt = atMs + 3000): LeaseSample => ({ atMs, key, holder, epoch, expiresAt });
const row = (id: number, nonce: number, extra: Partial<JournalEntry> = {}): JournalEntry => ({
  id, nonce, hash: `0x${id.toString(16).padStart(4, "0")}`, status: "confirmed", requestId: null, replaces: null, purpose: "updateBalances", createdAt: 1000 + id, ...extra,
});
const mined = (j: JournalEntry, input = `0xcall${j.id}`): MinedTx => ({ hash: j.hash, nonce: j.nonce, to: "0xfactory", input, block: j.id });

function empty(): History {
  return {
    intervalS: 2, leases: [], journal: [], journalHasSender: false, mined: [], acks: [],
    records: { order: new Map(), vault: new Set(), proposal: new Set(), session: new Set() },
    events: [], streams: [], writes: [], signIns: [], faults: [],
  };
}

test("leases: a new holder under a new epoch passes; two holders of one epoch, or an epoch going back, fail", () => {
  const good = [lease(0, "vault:a", "d1", 1), lease(100, "vault:a", "d1", 1), lease(5000, "vault:a", "d2", 2)];
  assert.equal(checkLeases(good), []);
  assert.match(checkLeases([...good, lease(5100, "vault:a", "d3", 2)]).join(), "epoch 2 held by d2 and by d3");
  assert.match(checkLeases([...good, lease(5200, "vault:a", "d1", 1)]).join(), "went back from epoch 2 to 1");
});

test("sender: nonces in journal order pass; a nonce handed out below the last fails (two senders interleaving)", () => {
  const journal = [row(1, 0), row(2, 1), row(3, 1, { replaces: 2, status: "replaced" }), row(4, 2, { status: "failed" }), row(5, 2)];
  assert.equal(checkSender({ journal, journalHasSender: false, leases: [] }), []);
  assert.match(checkSender({ journal: [...journal, row(6, 1)], journalHasSender: false, leases: [] }).join(), "row 6 signed nonce 1 after row 5");
});

test("sender: with the journal's sender columns, two signers of one epoch, a signer who did not hold it, or a signature after a newer epoch, fail", () => {
  const leases = [lease(1_000_000, "sender:external-31337", "d1", 1), lease(1_010_000, "sender:external-31337", "d2", 2)];
  const j = (id: number, nonce: number, sender: string, senderEpoch: number, createdAt: number) => row(id, nonce, { sender, senderEpoch, createdAt });
  const good = [j(1, 0, "d1", 1, 1001), j(2, 1, "d1", 1, 1005), j(3, 2, "d2", 2, 1011)];
  assert.equal(checkSender({ journal: good, journalHasSender: true, leases }), []);
  assert.match(checkSender({ journal: [...good, j(4, 3, "d3", 2, 1012)], journalHasSender: true, leases }).join(), "sender epoch 2 signed by d2 and by d3");
  assert.match(checkSender({ journal: [...good, j(4, 3, "d1", 2, 1012)], journalHasSender: true, leases }).join(), "which d2 held");
  assert.match(checkSender({ journal: [...good, j(4, 3, "d1", 1, 1013)], journalHasSender: true, leases }).join(), "after epoch 2 began");
});

test("mined: one transaction per nonce and request passes; a nonce or a request mined twice, or a send with no journal row, fail", () => {
  const a = row(1, 0, { requestId: "r1" });
  const b = row(2, 1, { requestId: "r2" });
  assert.equal(checkMined({ journal: [a, b], mined: [mined(a), mined(b)] }), []);
  const again = row(3, 2, { requestId: "r1" });
  const twice = checkMined({ journal: [a, b, again], mined: [mined(a), mined(b), mined(again, "0xother")] }).join();
  assert.match(twice, "request r1 mined 2 times");
  const sameNonce = { ...mined(row(4, 1)), hash: "0xdead" };
  const nonce = checkMined({ journal: [a, b, { ...row(4, 1), hash: "0xdead" }], mined: [mined(a), mined(b), sameNonce] }).join();
  assert.match(nonce, "nonce 1 mined twice");
  assert.match(nonce, "nonce 1: journal rows 2, 4 all mined");
  assert.match(checkMined({ journal: [a], mined: [mined(a), mined(b)] }).join(), "mined with no journal row");
  assert.match(checkMined({ journal: [a, b], mined: [mined(a)] }).join(), "row 2 says confirmed, but");
});

test("calls: distinct calls pass; one reading submitted under two requests fails, naming who asked", () => {
  const a = row(1, 0, { requestId: "r1", requester: "d1" });
  const b = row(2, 1, { requestId: "r2", requester: "d2" });
  assert.equal(checkCalls({ journal: [a, b], mined: [mined(a), mined(b)] }), []);
  const twice = checkCalls({ journal: [a, b], mined: [mined(a), mined(b, "0xcall1")] }).join();
  assert.match(twice, "the same call mined twice: nonces 0 (row 1 updateBalances confirmed, request r1 from d1");
  assert.match(twice, "and 1 (row 2 updateBalances confirmed, request r2 from d2");
});

test("acknowledged: every 2xx answer's record present passes; a missing record, two orders under a key, or two answers naming different orders fail", () => {
  const h = empty();
  h.records.order.set("k1", 1);
  h.records.vault.add("0xv");
  h.records.session.add("hash");
  h.acks.push({ kind: "order", key: "k1", daemon: 0, atMs: 1, detail: "7" }, { kind: "order", key: "k1", daemon: 1, atMs: 2, detail: "7" });
  h.acks.push({ kind: "vault", key: "0xv", daemon: 2, atMs: 3 }, { kind: "session", key: "hash", daemon: 0, atMs: 4 });
  assert.equal(checkAcknowledged(h), []);
  assert.match(checkAcknowledged({ ...h, acks: [...h.acks, { kind: "session", key: "lost", daemon: 1, atMs: 5 }] }).join(), "session lost answered 2xx by daemon 1");
  assert.match(checkAcknowledged({ ...h, acks: [...h.acks, { kind: "order", key: "k1", daemon: 2, atMs: 6, detail: "8" }] }).join(), "daemon 0 answered 7, daemon 2 8");
  h.records.order.set("k1", 2);
  assert.match(checkAcknowledged(h).join(), "order k1 answered 7 by daemon 0: 2 rows");
});

test("events: dense seqs and complete streams pass; a late commit skipped, a repeat, a gap in a vault's seq fail", () => {
  const events = [{ id: 1, vault: "a", seq: 1 }, { id: 2, vault: "b", seq: 1 }, { id: 3, vault: "a", seq: 2 }, { id: 4, vault: "a", seq: 3 }];
  assert.equal(checkEvents({ events, streams: [{ name: "s", from: 0, ids: [1, 2, 3] }, { name: "t", from: 2, ids: [3, 4] }] }), []);
  // Row 2 committed after row 3 had been sent: the reader asking for id > 3 never gets it.
  assert.match(checkEvents({ events, streams: [{ name: "s", from: 0, ids: [1, 3, 4] }] }).join(), "s: skipped 1 event(s) below the highest it received (4): 2");
  assert.match(checkEvents({ events, streams: [{ name: "s", from: 0, ids: [1, 2, 2, 3] }] }).join(), "received 2 after 2");
  assert.match(checkEvents({ events, streams: [{ name: "s", from: 0, ids: [1, 9] }] }).join(), "received 9, which is not stored");
  assert.match(checkEvents({ events: [...events, { id: 5, vault: "a", seq: 5 }], streams: [] }).join(), "event 5 has seq 5, expected 4");
});

test("checkHistory names every rule, each passing on an empty history", () => {
  const all = checkHistory(empty());
  assert.is(all.length, 6);
  assert.ok(all.every((r) => r.violations.length === 0));
});

test("a stall: the others writing on and quick sign-ins pass; a freeze past two intervals after the leases expire, or a slow sign-in, fail", () => {
  const h = empty();
  const t0 = 100_000;
  h.leases.push(lease(t0 - 400, "vault:a", "d0", 1, t0 + 2600), lease(t0 - 300, "vault:b", "d1", 1, t0 + 2700));
  h.writes.push({ vault: "a", seenMs: t0 - 1000, observedAt: 99 }, { vault: "b", seenMs: t0 - 900, observedAt: 99 });
  const fault = { kind: "stall" as const, daemon: 0, daemonId: "d0", fromMs: t0, toMs: t0 + 10_000 };
  const healthy = { ...h, writes: [...h.writes, { vault: "b", seenMs: t0 + 1500, observedAt: 101 }, { vault: "a", seenMs: t0 + 4000, observedAt: 103 }, { vault: "b", seenMs: t0 + 4200, observedAt: 103 }],
    signIns: [{ daemon: 1, startMs: t0 + 100, ms: 12, ok: true }, { daemon: 0, startMs: t0 + 200, ms: 9800, ok: true }] };
  const f = measureFault(healthy, fault);
  assert.equal(f.victimVaults, ["a"]);
  assert.equal(f.failoverMs, [4000]);
  assert.is(f.leasesExpireMs, t0 + 2600);
  assert.is(f.freezeMs, 10_000 - 4200);
  assert.equal(checkStall(f, 2), [], "the stalled daemon's own sign-in does not count");
  // Nothing written until the stalled daemon woke (the others waited on its lock): a freeze.
  const frozen = measureFault({ ...h, writes: [...h.writes, { vault: "a", seenMs: t0 + 10_050, observedAt: 110 }], signIns: [{ daemon: 1, startMs: t0 + 100, ms: 9900, ok: true }] }, fault);
  const problems = checkStall(frozen, 2).join("\n");
  assert.match(problems, "2 of 2 vaults not written within 2 intervals of its leases expiring (6600 ms after the stop)");
  assert.match(problems, "sign-in p99 9900 ms");
  // The test's bound, for any machine: written by the others before the stalled daemon woke.
  assert.equal(checkStall(f, 2, TEST_STALL), []);
  const frozenForTest = checkStall(frozen, 2, TEST_STALL).join("\n");
  assert.match(frozenForTest, "2 of 2 vaults not written by the others while it was stopped (10000 ms; its leases ran out 2600 ms after the stop)");
  assert.match(frozenForTest, "no sign-in on daemon(s) 1 answered while it was stopped");
  // A reading taken before the stop and stored after it is no write by the others.
  const old = measureFault({ ...h, writes: [...h.writes, { vault: "b", seenMs: t0 + 500, observedAt: 99 }] }, fault);
  assert.equal([...old.firstWriteMs.values()], [Infinity, Infinity]);
});

test("percentile: nearest rank", () => {
  assert.is(percentile([5, 1, 3, 2, 4], 50), 3);
  assert.is(percentile(Array.from({ length: 100 }, (_, i) => i + 1), 99), 99);
  assert.ok(Number.isNaN(percentile([], 99)));
});

test.run();
