// The event list's consecutive balance readings with the same figures, told as one line with their
// count and span ("×12, 10:01–10:12"), so a Paused event is not buried under a day of unchanged
// readings. Only the human view folds: --json keeps every event.

/** One listed event, newest first, with the sentence it is told in. */
export interface ToldEvent {
  id: number;
  type: string;
  /** Unix seconds. */
  time: number;
  data: unknown;
  sentence: string;
}

/** A row of the list: one event, or a run of identical readings (`count` > 1). */
export interface EventLine {
  id: string;
  time: number;
  text: string;
  count: number;
}

/** What makes two readings the same line: the figures, not when they were observed. */
function figures(e: ToldEvent): string | undefined {
  if (e.type !== "BalanceUpdated") return undefined;
  const { observedAt: _at, ...rest } = e.data as Record<string, unknown>;
  return `${e.sentence}\n${JSON.stringify(rest)}`;
}

const iso = (s: number) => new Date(s * 1000).toISOString();

/** "10:01–10:12" on one UTC day (to the second when one minute holds them all), else both dates too. */
function span(first: number, last: number): string {
  const [a, b] = [iso(first), iso(last)];
  if (first === last) return a.slice(11, 19);
  if (a.slice(0, 10) !== b.slice(0, 10)) return `${a.slice(0, 16).replace("T", " ")}–${b.slice(0, 16).replace("T", " ")} UTC`;
  const cut = a.slice(11, 16) === b.slice(11, 16) ? 19 : 16;
  return `${a.slice(11, cut)}–${b.slice(11, cut)}`;
}

/** `events` newest first, as listed; a run is shown at its newest reading's time. */
export function foldBalances(events: readonly ToldEvent[]): EventLine[] {
  const lines: EventLine[] = [];
  for (let i = 0; i < events.length;) {
    const key = figures(events[i]!);
    let j = i + 1;
    while (key !== undefined && j < events.length && figures(events[j]!) === key) j++;
    const [newest, oldest] = [events[i]!, events[j - 1]!];
    lines.push(j - i === 1
      ? { id: String(newest.id), time: newest.time, text: newest.sentence, count: 1 }
      : { id: `${oldest.id}–${newest.id}`, time: newest.time, text: `${newest.sentence} (×${j - i}, ${span(oldest.time, newest.time)})`, count: j - i });
    i = j;
  }
  return lines;
}
