// A vault's events, newest first, each in words under its title. A reading arrives every oracle
// interval, and while nothing moves each says the same: consecutive readings with the same figures
// fold into one line with their count and time span, so a pause among them stays in sight. Other
// events never fold, and a reading that differs starts a line of its own.
import type { DescribableEvent, EventDescription } from "../../../daemon/events/describe-event.js";
import { h, replace } from "../dom.js";
import { when } from "../format.js";

export type ListedEvent = DescribableEvent & { time: number };

/** A reading's figures without the time it was taken: equal keys read the same. */
function figuresKey(e: ListedEvent): string | null {
  if (e.type !== "BalanceUpdated") return null;
  const d = e.data;
  return [d.balance, d.peakBalance, d.dayStartBalance, d.drawdown, d.dailyDrawdown].join("|");
}

/** "2026-11-26 12:00:05 UTC", to the second: readings fold seconds to a minute apart. */
const toSecond = (unixSeconds: number) => `${new Date(unixSeconds * 1000).toISOString().replace("T", " ").slice(0, 19)} UTC`;

/** "2026-11-26 12:00:05 – 12:09:05 UTC"; the second day is written out when the span crosses midnight. */
function spanText(first: number, last: number): string {
  const [a, b] = [toSecond(first), toSecond(last)];
  if (a === b) return a;
  return a.slice(0, 10) === b.slice(0, 10) ? `${a.slice(0, 19)} – ${b.slice(11)}` : `${a} – ${b}`;
}

interface Line {
  item: HTMLLIElement;
  key: string | null;
  first: number;
  last: number;
  count: number;
}

function draw(line: Line, told: EventDescription, live: boolean): void {
  const { item, count } = line;
  item.className = live ? "live" : "";
  item.dataset.count = String(count);
  const time = count === 1 ? when(line.last) : spanText(line.first, line.last);
  replace(item, h("span", { class: "muted" }, time), " ", h("strong", {}, told.title), " ", told.sentence,
    count === 1 ? null : h("span", { class: "muted fold" }, ` (${count} readings alike)`));
}

/** A reading's time is when it was observed (its block may be mined a little later); others', their block's. */
const timeOf = (e: ListedEvent) => (e.type === "BalanceUpdated" ? e.data.observedAt : e.time);

export interface EventLog {
  element: HTMLElement;
  /** Adds the newest event on top (the stored ones oldest first, then live ones as they come). */
  add(e: ListedEvent, told: EventDescription, live?: boolean): void;
}

export function eventLog(): EventLog {
  const element = h("ul", { class: "events", id: "vault-events" });
  let top: Line | undefined;
  return {
    element,
    add(e, told, live = false) {
      const key = figuresKey(e);
      if (top && key !== null && top.key === key) {
        top.count += 1;
        top.last = timeOf(e);
        return draw(top, told, live);
      }
      const item = h("li", { "data-type": e.type });
      top = { item, key, first: timeOf(e), last: timeOf(e), count: 1 };
      draw(top, told, live);
      element.prepend(item);
    },
  };
}
