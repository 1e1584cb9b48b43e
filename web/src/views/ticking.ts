// Times that age while the page stays open: "reading 42 s ago", "in 3 h". Each element carries its
// time (Unix seconds) in data-as-of (since then) or data-until (until then); the vault page ticks
// them every second, on the page's clock.
import { h } from "../dom.js";
import { ageText } from "../../../daemon/lib/figures.js";
import { when } from "../format.js";

const sinceText = (asOf: number, nowMs: number) => `reading ${ageText(nowMs / 1000 - asOf)} ago`;
const untilText = (at: number, nowMs: number) => (at * 1000 <= nowMs ? "now" : `in ${ageText(at - nowMs / 1000)}`);

/** "reading 42 s ago", ticking; its title gives the reading's time. */
export const readingAge = (asOf: number, id?: string): HTMLElement =>
  h("span", { id, "data-as-of": asOf, title: `reading of ${when(asOf)}` }, sinceText(asOf, Date.now()));

/** "in 3 h", ticking; "now" once the time has come. */
export const countdown = (at: number, id?: string): HTMLElement => h("span", { id, "data-until": at }, untilText(at, Date.now()));

/** Brings every ticking time in `root` up to the page's clock. */
export function tickTimes(root: ParentNode): void {
  const now = Date.now();
  for (const el of Array.from(root.querySelectorAll<HTMLElement>("[data-as-of]"))) el.textContent = sinceText(Number(el.dataset.asOf), now);
  for (const el of Array.from(root.querySelectorAll<HTMLElement>("[data-until]"))) el.textContent = untilText(Number(el.dataset.until), now);
}
