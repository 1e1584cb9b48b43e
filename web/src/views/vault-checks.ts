// The vault page's Money checks card: the vault's last verification (GET /api/vaults/:address/
// verification) and Verify now (GET .../verify, which reads the chain and the exchange and can take a
// while), each invariant in words with its first break's figures, and the command an investor runs
// to check the same without the operator's daemon.
import type { VerificationResponse } from "../../../daemon/http/responses.js";
import { ApiError, get } from "../api.js";
import { h, replace } from "../dom.js";
import { when } from "../format.js";

type Verification = VerificationResponse;
type Invariant = Verification["invariants"][number];

/** Each invariant as a user would say it (daemon/verify/ checks them: money-checks, chain-checks, order-checks). */
const NAMES: Record<Invariant["invariant"], string> = {
  "readings-netted": "Each reading net of transfers",
  "flat-points": "Flat points match fills and funding",
  breaches: "Pauses follow the contract's rules",
  settlement: "Settlement and payouts",
  orders: "Order records follow the exchange",
};

const STATUS: Record<Invariant["status"], [text: string, badge: string]> = {
  holds: ["holds", "good"],
  broken: ["broken", "bad"],
  "not-checked": ["not checked", ""],
};

const OUTCOME: Record<Verification["outcome"], [text: string, badge: string]> = {
  holds: ["holds", "good"],
  broken: ["broken", "bad"],
  unreadable: ["could not be read", "bad"],
};

const errorText = (e: unknown) => (e instanceof ApiError ? `${e.message} (${e.code})` : e instanceof Error ? e.message : String(e));

function invariantItem(i: Invariant): HTMLElement {
  const [text, badge] = STATUS[i.status];
  return h("li", { "data-invariant": i.invariant, "data-status": i.status },
    h("span", { class: `badge ${badge}` }, text), " ",
    h("strong", {}, NAMES[i.invariant] ?? i.invariant),
    h("div", { class: "muted" }, i.summary),
    i.break ? h("dl", { class: "stats break" },
      h("dt", {}, "First break"), h("dd", {}, i.break.what),
      h("dt", {}, "Expected"), h("dd", { class: "expected" }, i.break.expected),
      h("dt", {}, "Actual"), h("dd", { class: "actual" }, i.break.actual)) : null);
}

function result(v: Verification | null): HTMLElement[] {
  if (!v) return [h("p", { id: "checks-outcome", class: "empty" }, "Not verified yet: Verify now checks the vault's money against the chain and the exchange.")];
  const [text, badge] = OUTCOME[v.outcome];
  const ran = v.invariants.filter((i) => i.status !== "not-checked").length;
  const broken = v.invariants.filter((i) => i.status === "broken").length;
  const how = v.mode === "daemon" ? "through this daemon with its records" : "from the chain and the exchange alone";
  return [
    h("p", { id: "checks-outcome" },
      h("span", { class: `badge ${badge}` }, text), " ",
      `Last checked ${when(v.checkedAt)} ${how}: ${ran} of ${v.invariants.length} checks ran${broken ? `, ${broken} broken` : ""}.`,
      v.reason ? h("span", { class: "warn" }, ` ${v.reason}`) : null),
    h("ul", { class: "checks", id: "checks-list" }, ...v.invariants.map(invariantItem)),
  ];
}

/** The command that checks the same from public endpoints, with no daemon and no sign-in. */
const independently = (address: string): HTMLElement[] => [
  h("p", { class: "muted" },
    "Investors can run the same check without trusting the operator, from the chain and the exchange alone (the daemon's own records are then left out):"),
  h("pre", { class: "command" }, `npx tradevault verify ${address} --rpc-url <chain RPC> --exchange <exchange API>`),
];

/** The card, filled with the vault's last verification as soon as it is read. */
export function vaultChecks(address: string): HTMLElement {
  const card = h("section", { class: "card", id: "vault-checks" });
  const shown = h("div", { id: "checks-result" }, h("p", { class: "muted" }, "Reading the last check…"));
  const message = h("p", { id: "checks-error", class: "error", role: "alert", hidden: true });
  const running = h("span", { id: "checks-running", class: "muted", hidden: true }, "Reading the chain and the exchange…");
  const verify = h("button", { type: "button", id: "verify-now" }, "Verify now");
  // A run the user started is newer than the stored one, however late that one arrives.
  let verifiedHere = false;
  const show = (v: Verification | null) => {
    card.dataset.outcome = v ? v.outcome : "none";
    replace(shown, ...result(v));
  };
  const failed = (e: unknown) => {
    message.textContent = errorText(e);
    message.hidden = false;
  };
  const busy = (on: boolean) => {
    verify.disabled = on;
    running.hidden = !on;
    card.toggleAttribute("data-running", on);
  };
  verify.addEventListener("click", async () => {
    busy(true);
    message.hidden = true;
    try {
      const { verification } = await get<{ verification: Verification }>(`/api/vaults/${address}/verify`);
      verifiedHere = true;
      show(verification);
    } catch (e) {
      failed(e); // the last result stays shown under the message
    } finally {
      busy(false);
    }
  });
  replace(card, h("h2", {}, "Money checks"), shown, message, h("div", { class: "actions" }, verify, running), ...independently(address));
  get<{ verification: Verification | null }>(`/api/vaults/${address}/verification`).then((r) => {
    if (!verifiedHere) show(r.verification);
  }, failed);
  return card;
}
