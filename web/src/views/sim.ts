// Paper trading controls, shown only when the daemon runs the embedded sim: test funds for your
// own account (the faucet also mints the chain's test token) and the sim's mark prices, the latter
// only when the daemon lets any signed-in user move them (/healthz sim.controls "open").
import { act, notice, type App } from "../app.js";
import { post } from "../api.js";
import { field, formValues, h, input, replace } from "../dom.js";

export function simView(app: App, view: HTMLElement): void {
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
  price.addEventListener("submit", (e) => {
    e.preventDefault();
    const v = formValues(price);
    void act(price.querySelector("button"), async () => {
      await post("/api/sim/price", { symbol: v.symbol!.toUpperCase(), price: v.price });
      notice(`${v.symbol!.toUpperCase()} mark set to ${v.price} on the sim.`);
    });
  });
  const prices = app.info.sim?.controls === "open"
    ? h("section", { class: "card" }, h("h2", {}, "Sim prices"), h("p", {}, "Move a mark (at most 20% a move): resting orders that cross it fill, vaults are revalued."), price)
    : h("section", { class: "card", id: "prices-reserved" }, h("h2", {}, "Sim prices"),
      h("p", {}, "This daemon is shared: only its operator moves sim prices."));
  replace(view,
    h("section", { class: "card" }, h("h2", {}, "Test funds"), h("p", {}, "Paper trading only: credits your sim account (at most 100,000 USDC a day)."), faucet),
    prices);
}
