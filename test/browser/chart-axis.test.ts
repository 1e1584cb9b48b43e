// The vault chart's axis labels (web/src/views/chart-axis.ts): each tick says only what changed at it,
// in UTC, short enough that neighbours never run into each other at phone width; the crosshair says
// the whole time; prices are grouped. Pure functions: the chart draws them on a canvas no test reads.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { TickMarkType, type UTCTimestamp } from "lightweight-charts";
import { axisPrice, crosshairTime, tickLabel } from "../../web/src/views/chart-axis.js";

const at = (iso: string) => (Date.parse(iso) / 1000) as UTCTimestamp;

test("a tick names the year, the month, the day, the minute or the second, in UTC", () => {
  const t = at("2026-11-26T14:05:30Z");
  assert.is(tickLabel(t, TickMarkType.Year), "2026");
  assert.is(tickLabel(t, TickMarkType.Month), "Nov");
  assert.is(tickLabel(t, TickMarkType.DayOfMonth), "26 Nov");
  assert.is(tickLabel(t, TickMarkType.Time), "14:05");
  assert.is(tickLabel(t, TickMarkType.TimeWithSeconds), "14:05:30");
  assert.is(tickLabel(at("2026-01-02T00:00:00Z"), TickMarkType.Time), "00:00", "midnight UTC, whatever the machine's zone");
});

test("no tick label is longer than 8 characters; the crosshair gives the whole time", () => {
  const t = at("2026-12-31T23:59:59Z");
  for (const type of [TickMarkType.Year, TickMarkType.Month, TickMarkType.DayOfMonth, TickMarkType.Time, TickMarkType.TimeWithSeconds]) {
    assert.ok(tickLabel(t, type).length <= 8, tickLabel(t, type));
  }
  assert.is(crosshairTime(t), "31 Dec 2026 23:59:59 UTC");
});

test("axis prices are grouped with cents", () => {
  assert.is(axisPrice(10116.69973), "10,116.70");
  assert.is(axisPrice(9105.03), "9,105.03");
});

test.run();
