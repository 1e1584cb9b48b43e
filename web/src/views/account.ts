// The account screen: equity and margin, the agent (approve with the wallet), and the trade panel
// (order form, open orders with cancel, positions with close) on your own account.
import type { Account, AgentStatus, UserNoticesPage } from "../../../daemon/http/responses.js";
import { describeNotice, type DescribableNotice } from "../../../daemon/events/describe-notice.js";
import { act, notice, type App } from "../app.js";
import { get, post } from "../api.js";
import { h, replace } from "../dom.js";
import { usdc } from "../format.js";
import { activeChainId, signTypedData } from "../wallet.js";
import { tradePanel } from "./trade-panel.js";

export async function accountView(app: App, view: HTMLElement): Promise<void> {
  // An order moves the equity and margin too: the whole screen is read again after one.
  const [account, trading, notices] = await Promise.all([
    get<Account>("/api/account"), tradePanel({ canTrade: true, onChange: app.refresh }), get<UserNoticesPage>("/api/notices?limit=20"),
  ]);
  replace(view, summaryCard(account), agentCard(app, account), ...trading.cards, noticesCard(notices));
}

/** What the daemon told you (a stop that did not fill and the close that stood in, a liquidation, an agent key expiring), newest first. */
function noticesCard(page: UserNoticesPage): HTMLElement {
  const items = page.notices.map((n) => {
    const d = describeNotice({ type: n.type, user: "", data: n.data } as DescribableNotice);
    return h("li", {}, h("time", {}, new Date(n.time * 1000).toISOString().slice(0, 16).replace("T", " ")), " ", h("strong", {}, d.title), ": ", d.sentence);
  });
  return h("section", { class: "card", id: "notices-card" },
    h("h2", {}, "Notices"),
    items.length ? h("ul", { class: "notices" }, ...items) : h("p", {}, "Nothing yet: stops that did not fill, liquidations and agent key reminders show here."));
}

function summaryCard(a: Account): HTMLElement {
  const x = a.exchange;
  return h("section", { class: "card", id: "account-card" },
    h("h2", {}, "Account"),
    x.available
      ? h("dl", { class: "stats" },
        h("dt", {}, "Equity"), h("dd", { id: "equity" }, `${usdc(x.accountValue)} USDC`),
        h("dt", {}, "Margin used"), h("dd", { id: "margin" }, `${usdc(x.marginUsed)} USDC`),
        h("dt", {}, "Withdrawable"), h("dd", {}, `${usdc(x.withdrawable)} USDC`),
        h("dt", {}, "Open positions"), h("dd", {}, String(x.openPositions ?? 0)))
      : h("p", { class: "warn" }, `The exchange (${x.kind}) did not answer: ${x.error ?? "unavailable"}`));
}

function agentCard(app: App, a: Account): HTMLElement {
  const approved = a.agent?.approved === true;
  const button = h("button", { type: "button", id: "approve-agent" }, approved ? "Approve a fresh agent" : "Approve agent");
  button.addEventListener("click", () => act(button, async () => {
    // Hyperliquid accepts any signatureChainId, and wallets sign only for their active chain.
    const chainHex = "0x" + (await activeChainId()).toString(16);
    const status = await get<AgentStatus>(`/api/agent?signatureChainId=${chainHex}`);
    if (!status.approval) return notice("Your agent is already approved.");
    const signature = await signTypedData(app.address!, status.approval.typedData as never);
    await post("/api/agent/approve", { nonce: status.approval.nonce, signature, signatureChainId: chainHex });
    notice("Agent approved: orders are signed by it from now on.");
    app.refresh();
  }));
  return h("section", { class: "card" },
    h("h2", {}, "Agent"),
    h("p", { id: "agent-status" }, approved
      ? `Approved (${a.agent!.address}); it can trade, never withdraw.`
      : "Not approved yet: your wallet signs approveAgent once, then the daemon's agent key signs your orders."),
    approved ? null : button);
}
