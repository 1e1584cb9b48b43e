// The vault's balance and peak over time, with the drawdown limits drawn: the max-drawdown floor
// (peak x (1 - max%)) as a series and today's daily floor (day start x (1 - daily%)) as a price line.
// Points come from BalanceUpdated events (the stored ones first, then live). The chart library takes
// numbers: these are for drawing only; every figure shown as text stays a decimal string.
import { createChart, LineSeries, LineStyle, type IChartApi, type IPriceLine, type ISeriesApi, type UTCTimestamp } from "lightweight-charts";
import { h } from "../dom.js";
import { usdc } from "../format.js";
import { axisPrice, crosshairTime, tickLabel } from "./chart-axis.js";

export interface BalancePoint {
  time: number;
  balance: string;
  peak: string;
  dayStart?: string;
}

export interface VaultChart {
  element: HTMLElement;
  add(p: BalancePoint): void;
  /** How many points the balance series holds (tests and the caption read it). */
  points(): number;
  destroy(): void;
}

export function vaultChart(limits: { maxDrawdown: number; dailyDrawdown: number }, initial: BalancePoint[]): VaultChart {
  const box = h("div", { class: "chart", id: "vault-chart" });
  const caption = h("p", { class: "caption", id: "chart-caption" });
  // The library's own attribution logo injects a <style> element, which the dashboard's CSP refuses;
  // its licence asks for the attribution, so it is given here as a plain link instead.
  const credit = h("p", { class: "caption" }, "Chart: ", h("a", { href: "https://www.tradingview.com/", rel: "noopener", target: "_blank" }, "TradingView Lightweight Charts"));
  const element = h("div", {}, box, caption, credit);
  const chart: IChartApi = createChart(box, {
    autoSize: true, height: 260,
    layout: { background: { color: "transparent" }, textColor: "#c9d1d9", attributionLogo: false },
    grid: { vertLines: { color: "#30363d" }, horzLines: { color: "#30363d" } },
    timeScale: { timeVisible: true, secondsVisible: true, tickMarkFormatter: tickLabel },
    localization: { timeFormatter: crosshairTime, priceFormatter: axisPrice },
  });
  // The chart is made before the page puts it in the document (no width yet): the points are fitted
  // again once it has its width, and whenever that changes (a phone turned), or they sit in a sliver.
  const fit = new ResizeObserver(() => chart.timeScale().fitContent());
  fit.observe(box);
  const balance: ISeriesApi<"Line"> = chart.addSeries(LineSeries, { color: "#58a6ff", lineWidth: 2, title: "balance" });
  const peak = chart.addSeries(LineSeries, { color: "#8b949e", lineWidth: 1, lineStyle: LineStyle.Dotted, title: "peak" });
  const floor = chart.addSeries(LineSeries, { color: "#f85149", lineWidth: 1, lineStyle: LineStyle.Dashed, title: `max DD ${limits.maxDrawdown}%` });
  let daily: IPriceLine | undefined;
  let last = 0;
  let count = 0;

  const add = (p: BalancePoint) => {
    // The library needs strictly increasing times: a second point within the same second replaces the first.
    const time = Math.max(p.time, last) as UTCTimestamp;
    if (time > last) count++;
    last = time;
    const b = Number(p.balance);
    const pk = Number(p.peak);
    balance.update({ time, value: b });
    peak.update({ time, value: pk });
    floor.update({ time, value: pk * (1 - limits.maxDrawdown / 100) });
    if (p.dayStart !== undefined) {
      const price = Number(p.dayStart) * (1 - limits.dailyDrawdown / 100);
      if (daily) daily.applyOptions({ price });
      else daily = balance.createPriceLine({ price, color: "#d29922", lineStyle: LineStyle.Dashed, lineWidth: 1, axisLabelVisible: true, title: `daily DD ${limits.dailyDrawdown}%` });
    }
    chart.timeScale().fitContent();
    caption.textContent = `${count} balance reading${count === 1 ? "" : "s"}; last ${usdc(p.balance)} USDC (peak ${usdc(p.peak)})`;
    element.dataset.points = String(count);
  };
  for (const p of [...initial].sort((a, b) => a.time - b.time)) add(p);
  if (count === 0) caption.textContent = "No balance reading yet: the oracle writes one each cycle.";
  return { element, add, points: () => count, destroy() {
    fit.disconnect();
    chart.remove();
  } };
}
