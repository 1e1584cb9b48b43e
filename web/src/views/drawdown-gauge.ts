// A drawdown against its limit: a native <meter> (no inline style, which the page's CSP refuses) and
// the figures in words, "4.1% of 5%", with how near the limit it is past 80% of it, so it reads
// without colour. The words are the CLI's too (lib/figures.ts drawdownOfLimit).
import { drawdownOfLimit, limitNearness } from "../../../daemon/lib/figures.js";
import { h } from "../dom.js";

/** `what` names the drawdown for screen readers ("daily drawdown"). */
export function drawdownGauge(what: string, current: number, limit: number, id?: string): HTMLElement {
  const text = drawdownOfLimit(current, limit);
  const near = limitNearness(current, limit) !== "";
  return h("span", { class: `gauge${near ? " near" : ""}`, id },
    h("meter", { min: 0, max: limit, value: Math.min(current, limit), low: limit * 0.8, high: limit * 0.9, optimum: 0, "aria-label": `${what}: ${text}` }),
    h("span", { class: "gauge-text" }, text));
}
