// The event list's folding: only consecutive balance readings with the same figures (when each was
// observed aside) become one line, with their count, their ids oldest to newest and their span.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { foldBalances, type ToldEvent } from "../../cli/fold-balances.js";

/** 2026-11-26T10:01:00Z. */
const T0 = Date.UTC(2026, 10, 26, 10, 1) / 1000;
const figures = { balance: "9470", peakBalance: "10000", dayStartBalance: "10000", drawdown: 5.3, dailyDrawdown: 5.3 };
const reading = (id: number, time: number, over: Partial<typeof figures> = {}): ToldEvent => ({
  id, type: "BalanceUpdated", time, data: { ...figures, ...over, observedAt: time }, sentence: `Balance ${over.balance ?? figures.balance}`,
});
const paused = (id: number, time: number): ToldEvent => ({ id, type: "Paused", time, data: { reason: 2 }, sentence: "paused" });
/** Newest first, as the list is. */
const newestFirst = (events: ToldEvent[]) => [...events].reverse();

test("twelve unchanged readings, a pause, two more: three lines, the pause between", () => {
  const before = Array.from({ length: 12 }, (_, i) => reading(i + 1, T0 + i * 60));
  const lines = foldBalances(newestFirst([...before, paused(13, T0 + 700), reading(14, T0 + 720), reading(15, T0 + 780)]));
  assert.equal(lines.map((l) => [l.id, l.text, l.count]), [
    ["14–15", "Balance 9470 (×2, 10:13–10:14)", 2],
    ["13", "paused", 1],
    ["1–12", "Balance 9470 (×12, 10:01–10:12)", 12],
  ]);
  assert.is(lines[2]!.time, T0 + 11 * 60, "a run is shown at its newest reading");
});

test("a changed figure, or any other event, breaks a run; when each was observed does not", () => {
  const lines = foldBalances(newestFirst([reading(1, T0), reading(2, T0 + 60), reading(3, T0 + 120, { peakBalance: "10001" }), reading(4, T0 + 180, { peakBalance: "10001" })]));
  assert.equal(lines.map((l) => l.id), ["3–4", "1–2"], "same sentence, another peak: another line");
  const others = foldBalances(newestFirst([paused(1, T0), paused(2, T0 + 60)]));
  assert.equal(others.map((l) => l.id), ["2", "1"], "only balance readings fold");
  assert.equal(foldBalances([reading(1, T0)]).map((l) => l.text), ["Balance 9470"], "one reading is itself");
});

test("the span: to the second within a minute, dates when the run crosses midnight", () => {
  assert.match(foldBalances(newestFirst([reading(1, T0 + 5), reading(2, T0 + 50)]))[0]!.text, "(×2, 10:01:05–10:01:50)");
  assert.match(foldBalances(newestFirst([reading(1, T0), reading(2, T0)]))[0]!.text, "(×2, 10:01:00)");
  const midnight = Date.UTC(2026, 10, 27) / 1000;
  assert.match(foldBalances(newestFirst([reading(1, midnight - 60), reading(2, midnight + 60)]))[0]!.text, "(×2, 2026-11-26 23:59–2026-11-27 00:01 UTC)");
});

test.run();
