// parseDateBound: the forms a page's startDate/endDate take, read in UTC whatever the process's zone.
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { parseDateBound } from "../../daemon/lib/date-bound.js";

const t = suite("date bound");
const at = Date.UTC(2026, 10, 1, 10, 0, 0);

t("date-times: UTC without a zone, offsets honoured, fractions to the millisecond", () => {
  const zone = process.env.TZ;
  process.env.TZ = "Pacific/Honolulu";
  try {
    assert.is(parseDateBound("2026-11-01T10:00:00", false), at);
    assert.is(parseDateBound("2026-11-01T10:00", false), at);
    assert.is(parseDateBound("2026-11-01T10:00:00Z", false), at);
    assert.is(parseDateBound("2026-11-01T12:30:00+02:30", false), at);
    assert.is(parseDateBound("2026-11-01T00:00:00-1000", false), at);
    assert.is(parseDateBound("2026-11-01T10:00:00.1239Z", false), at + 123);
    assert.is(parseDateBound("2026-11-01", false), Date.UTC(2026, 10, 1));
    assert.is(parseDateBound("2026-11-01", true), Date.UTC(2026, 10, 2) - 1, "a date-only end covers its day");
    assert.is(new Date(parseDateBound("0050-01-01", false)).toISOString(), "0050-01-01T00:00:00.000Z", "year 50, not 1950");
  } finally {
    if (zone === undefined) delete process.env.TZ;
    else process.env.TZ = zone;
  }
});

t("Unix seconds", () => {
  assert.is(parseDateBound("1793527200", false), 1_793_527_200_000);
  assert.is(parseDateBound("1793527200", true), 1_793_527_200_999);
});

t("days, times and offsets that do not exist are refused with a reason", () => {
  for (const text of ["2026-02-29", "2026-02-30", "2026-04-31", "2026-13-01", "2026-00-01", "2026-01-00", "2026-11-31T25:00", "2026-11-01T24:00",
    "2026-11-01T10:60", "2026-11-01T10:00:60Z", "2026-11-01T10:00+24:00", "2026-11-01T10:00+01:60"]) {
    assert.type(parseDateBound(text, false), "string", text);
  }
  assert.type(parseDateBound("2028-02-29", false), "number", "a leap day");
  assert.type(parseDateBound("2000-02-29", false), "number", "a leap century");
  assert.type(parseDateBound("2100-02-29", false), "string", "not a leap century");
  for (const text of ["yesterday", "2026-11-01T", "2026-11-01 10:00", "2026-1-01", "+002026-11-01", "1e9", ""]) {
    assert.match(parseDateBound(text, false) as string, /^use an ISO 8601 date/, text);
  }
});

t.run();
