// Paper trading controls, shown only when the daemon runs the embedded sim: test funds for your
// own account (the faucet also mints the chain's test token) and the sim's mark prices, the latter
// only when the daemon lets any signed-in user move them (/healthz sim.controls "open"), with the
// symbol's current price beside the control (GET /api/prices, read when the tab opens, when the
// symbol changes and after each move).
import type { Prices } from "../../../daemon/http/responses.js";
import { act, notice, type App } from "../app.js";
import { get, post } from "../api.js";
import { field, formValues, h, input, replace } from "../dom.js";
import { figure, when } from "../format.js";

/** The exchange's mids (on the sim: its marks as they move), read again on each look. */
const currentPrices = () => get<Prices>("/api/prices").then((r) => r.prices, () => ({} as Prices["prices"]));

/** "60000.0" -> "60,000": the exchange writes mids with trailing zeros. */
const priceText = (mid: string) => figure(mid.includes(".") ? mid.replace(/0+$/, "").replace(/\.$/, "") : mid);

const markText = (symbol: string, price: string | undefined) =>
  price ? `${symbol} now: ${priceText(price)} (at ${when(Math.floor(Date.now() / 1000))})` : `${symbol}: no such market on the sim`;

export async function simView(app: App, view: HTMLElement): Promise<void> {
  const faucet = h("form", { id: "faucet-form", class: "grid" },
    field("Amount (USDC)", input("amount", { value: "10000", inputmode: "decimal", required: true })),
    h("button", { type: "submit", id: "faucet" }, "Get test funds"));
  faucet.addEventListener("submit", (e) => {
    e.preventDefault();
    const v = formValues(faucet);
    void act(faucet.querySelector("button"), async () => {
      await post("/api/sim/faucet", { amount: v.amount });
      notice(`Credited ${v.amount} test USDC to ${app.address}.`);
    });
  });
  const price = h("form", { id: "price-form", class: "grid" },
    field("Symbol", input("symbol", { value: "BTC", required: true })),
    field("Mark price", input("price", { inputmode: "decimal", required: true })),
    h("button", { type: "submit", id: "set-price" }, "Set price"));
  const current = h("p", { id: "sim-mark" });
  const symbolNow = () => formValues(price).symbol!.toUpperCase();
  const showMark = async () => {
    const symbol = symbolNow();
    const prices = await currentPrices();
    // A later keystroke's answer may come first: only the symbol still in the field is shown.
    if (symbol === symbolNow()) current.textContent = markText(symbol, prices[symbol]);
  };
  price.querySelector("[name=symbol]")!.addEventListener("input", () => void showMark());
  await showMark();
  price.addEventListener("submit", (e) => {
    e.preventDefault();
    const v = formValues(price);
    const symbol = v.symbol!.toUpperCase();
    void act(price.querySelector("button"), async () => {
      await post("/api/sim/price", { symbol, price: v.price });
      await showMark();
      notice(`${symbol} mark set to ${v.price} on the sim.`);
    });
  });
  const prices = app.info.sim?.controls === "open"
    ? h("section", { class: "card" }, h("h2", {}, "Sim prices"), h("p", {}, "Move a mark (at most 20% a move): resting orders that cross it fill, vaults are revalued."), current, price)
    : h("section", { class: "card", id: "prices-reserved" }, h("h2", {}, "Sim prices"),
      h("p", {}, "This daemon is shared: only its operator moves sim prices."));
  replace(view,
    h("section", { class: "card" }, h("h2", {}, "Test funds"), h("p", {}, "Paper trading only: credits your sim account (at most 100,000 USDC a day)."), faucet),
    prices);
}
