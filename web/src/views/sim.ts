// Paper trading controls, shown only when the daemon runs the embedded sim: test funds for your
// own account (the faucet also mints the chain's test token) and the sim's mark prices, the latter
// only when the daemon lets any signed-in user move them (/healthz sim.controls "open"), with the
// symbol's current mark beside the control.
import type { Positions } from "../../../daemon/http/responses.js";
import { act, notice, type App } from "../app.js";
import { get, post } from "../api.js";
import { field, formValues, h, input, replace } from "../dom.js";
import { figure, when } from "../format.js";

/** A mark this page knows, where from, and when (Unix seconds). */
interface Mark { price: string; from: string; at: number }

/**
 * The marks this page knows. The daemon has no route that reads the sim's marks, so they come from
 * your positions (their markPrice) and from each price set here (the mark is then exactly that), each
 * with its time: the sim's feed (random by default) moves marks on from there.
 */
async function knownMarks(): Promise<Map<string, Mark>> {
  const { positions } = await get<Positions>("/api/positions").catch(() => ({ positions: [] as Positions["positions"] }));
  const at = Math.floor(Date.now() / 1000);
  return new Map(positions.map((p) => [p.symbol, { price: figure(p.markPrice), from: "your position's mark", at }]));
}

const markText = (symbol: string, m: Mark | undefined) =>
  m ? `${symbol} mark: ${m.price} (${m.from} at ${when(m.at)})` : `${symbol} mark: not known here until you set it (or hold a position)`;

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
  const marks = await knownMarks();
  const current = h("p", { id: "sim-mark" });
  const showMark = () => {
    const symbol = formValues(price).symbol!.toUpperCase();
    current.textContent = markText(symbol, marks.get(symbol));
  };
  price.querySelector("[name=symbol]")!.addEventListener("input", showMark);
  showMark();
  price.addEventListener("submit", (e) => {
    e.preventDefault();
    const v = formValues(price);
    const symbol = v.symbol!.toUpperCase();
    void act(price.querySelector("button"), async () => {
      await post("/api/sim/price", { symbol, price: v.price });
      marks.set(symbol, { price: figure(v.price!), from: "set here", at: Math.floor(Date.now() / 1000) });
      showMark();
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
