// Proposals: either party proposes terms; each signs the EIP-712 terms in their own wallet (on the
// vault chain, which the wallet is switched to first); the second signature deploys the vault.
import type { Proposal, ProposalList, ProposalResponse } from "../../../daemon/http/responses.js";
import { act, notice, type App } from "../app.js";
import { get, post } from "../api.js";
import { field, formValues, h, input, replace, select, table } from "../dom.js";
import { bpsToPercent, percentBps, pct, short, usdc, when } from "../format.js";
import { ensureChain, signTypedData, type TypedData } from "../wallet.js";
import { BREACH_POLICY_TABLE, DEFAULT_BREACH_POLICY } from "../../../daemon/vaults/breach-policies.js";

export async function proposalsView(app: App, view: HTMLElement): Promise<void> {
  const list = await get<ProposalList>("/api/proposals?limit=100");
  replace(view, createCard(app), listCard(app, list.proposals));
}

function createCard(app: App): HTMLElement {
  const form = h("form", { id: "proposal-form", class: "grid" },
    field("I am the", select("role", [["trader", "trader"], ["investor", "investor"]])),
    field("Counterparty address", input("counterparty", { required: true, placeholder: "0x…" })),
    field("Initial balance (USDC)", input("initialBalance", { inputmode: "decimal", value: "10000", required: true })),
    field("Max drawdown (%)", input("maxDrawdown", { inputmode: "decimal", value: "10", required: true })),
    field("Daily drawdown (%)", input("dailyDrawdown", { inputmode: "decimal", value: "5", required: true })),
    field("Deal length (days)", input("days", { inputmode: "numeric", value: "30", required: true })),
    field("Trader's profit share (%)", input("traderShare", { inputmode: "decimal", value: "20", required: true })),
    field("On a breach", select("breachPolicy", BREACH_POLICY_TABLE.map((p) => [p.name, `${p.name}: ${p.summary}`] as [string, string]))),
    h("button", { type: "submit", id: "create-proposal" }, "Propose"));
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const v = formValues(form);
    void act(form.querySelector("button"), async () => {
      const me = app.address!;
      const traderBps = percentBps(v.traderShare!);
      const body: Record<string, unknown> = {
        investor: v.role === "investor" ? me : v.counterparty,
        trader: v.role === "trader" ? me : v.counterparty,
        initialBalance: v.initialBalance, maxDrawdown: v.maxDrawdown, dailyDrawdown: v.dailyDrawdown,
        dealDeadline: Math.floor(Date.now() / 1000) + Math.round(Number(v.days) * 86_400),
        profitShare: { trader: bpsToPercent(traderBps), investor: bpsToPercent(10_000 - traderBps) },
      };
      // The default term is sent only when another policy is chosen.
      if (v.breachPolicy && v.breachPolicy !== DEFAULT_BREACH_POLICY) body.breachPolicy = v.breachPolicy;
      const r = await post<ProposalResponse>("/api/proposals", body);
      notice(`Proposal ${r.proposal.id} created${r.warnings.length ? `: ${r.warnings.map((w) => w.message).join("; ")}` : ""}. Both parties now sign it.`);
      app.refresh();
    });
  });
  return h("section", { class: "card" }, h("h2", {}, "Propose a vault"), form);
}

function listCard(app: App, proposals: Proposal[]): HTMLElement {
  const rows = proposals.map((p) => [
    String(p.id), p.status, short(p.investor), short(p.trader), usdc(p.initialBalance),
    `${pct(p.maxDrawdown)} / ${pct(p.dailyDrawdown)}`, `${p.profitShare.trader}% / ${p.profitShare.investor}%`,
    breachPolicy(p), when(p.dealDeadline),
    `${p.signedBy.investor ? "investor ✓" : "investor …"} ${p.signedBy.trader ? "trader ✓" : "trader …"}`,
    actions(app, p),
  ]);
  return h("section", { class: "card" }, h("h2", {}, "Proposals"),
    table(["Id", "Status", "Investor", "Trader", "Balance", "Max / daily DD", "Trader / investor", "Breach", "Deadline", "Signed", ""], rows,
      "No proposals yet.", { id: "proposals" }));
}

const breachPolicy = (p: Proposal): string => String((p as Proposal & { breachPolicy?: string }).breachPolicy ?? "pause");

function actions(app: App, p: Proposal): HTMLElement | string {
  if (p.vaultAddress) return h("a", { href: `#vault/${p.vaultAddress}`, class: "vault-link" }, "Open vault");
  if (p.status !== "PENDING") return p.relayError ?? "";
  const me = app.address!.toLowerCase();
  const role = p.investor.toLowerCase() === me ? "investor" : p.trader.toLowerCase() === me ? "trader" : undefined;
  if (!role || p.signedBy[role]) return "waiting for the other party";
  const sign = h("button", { type: "button", class: "small", "data-accept": p.id }, "Sign & accept");
  sign.addEventListener("click", () => act(sign, async () => {
    const td = p.typedData as TypedData;
    await ensureChain(Number(td.domain.chainId), app.info.chain.rpcUrl, "tradevault chain");
    const signature = await signTypedData(app.address!, td);
    const r = await post<{ proposal: Proposal }>(`/api/proposals/${p.id}/accept`, { signature });
    notice(r.proposal.vaultAddress ? `Both signed: vault ${r.proposal.vaultAddress} deployed.` : `Signed proposal ${p.id}; waiting for the other party.`);
    app.refresh();
  }));
  const reject = h("button", { type: "button", class: "small secondary" }, "Reject");
  reject.addEventListener("click", () => act(reject, async () => {
    await post(`/api/proposals/${p.id}/reject`);
    app.refresh();
  }));
  return h("span", { class: "actions" }, sign, reject);
}
