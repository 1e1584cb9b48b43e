// A date bound (a page's startDate/endDate, the CLI's --from/--to): an ISO 8601 date or date-time,
// or Unix seconds. Parsed here rather than by Date.parse, which reads a date-time without a zone in
// the process's local time zone and rolls an impossible day over into the next month (2026-02-30 is
// March 2nd). A plain module (no imports), so the CLI checks its arguments by the daemon's own rule.

const UNIX_SECONDS = /^\d{1,12}$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

/** Why a text is not a date bound when it has none of the forms. */
export const DATE_FORMS = "use an ISO 8601 date (2026-11-01), date-time (2026-11-01T10:00:00, UTC unless it names a zone), or Unix seconds";

function daysIn(year: number, month: number): number {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]!;
}

/** Unix ms of a UTC calendar time (Date.UTC would read years 0-99 as 1900-1999). */
function utcMs(year: number, month: number, day: number, hour = 0, minute = 0, second = 0, ms = 0): number {
  const t = new Date(0);
  t.setUTCFullYear(year, month - 1, day);
  t.setUTCHours(hour, minute, second, ms);
  return t.getTime();
}

/** A zone designator's offset from UTC in minutes; undefined when it names no real offset. */
function offsetMinutes(zone: string | undefined): number | undefined {
  if (zone === undefined || zone.toUpperCase() === "Z") return 0;
  const digits = zone.slice(1).replace(":", "");
  const hours = Number(digits.slice(0, 2));
  const minutes = digits.length > 2 ? Number(digits.slice(2)) : 0;
  if (hours > 23 || minutes > 59) return undefined;
  return (zone[0] === "-" ? -1 : 1) * (hours * 60 + minutes);
}

/**
 * `text` as Unix ms, or why it is not a date bound. A date-only end covers its whole day; a date-time
 * without a zone is UTC; a day, hour, minute, second or offset that does not exist is refused.
 */
export function parseDateBound(text: string, end: boolean): number | string {
  if (UNIX_SECONDS.test(text)) return Number(text) * 1000 + (end ? 999 : 0);
  const m = DATE.exec(text) ?? DATE_TIME.exec(text);
  if (!m) return DATE_FORMS;
  const [year, month, day, hour = 0, minute = 0, second = 0] = m.slice(1, 7).map((x) => (x === undefined ? undefined : Number(x)));
  if (month! < 1 || month! > 12 || day! < 1 || day! > daysIn(year!, month!)) return `${text} is no date: that day does not exist`;
  if (hour! > 23 || minute! > 59 || second! > 59) return `${text} is no time: hours run 00-23, minutes and seconds 00-59`;
  const offset = offsetMinutes(m[8]);
  if (offset === undefined) return `${text} names no UTC offset: hours run 00-23, minutes 00-59`;
  const ms = Number((m[7] ?? "").padEnd(3, "0").slice(0, 3)); // below a millisecond is dropped
  const at = utcMs(year!, month!, day!, hour, minute, second, ms) - offset * 60_000;
  return m.length === 4 && end ? at + 86_400_000 - 1 : at;
}
