// One user notice in words (a proposal the other party signed, an agent key about to expire), as
// describe-event.ts tells a vault event: a title, a sentence that says what to do, and figures. Plain
// module, for the CLI, the dashboard's bundle and the alert formats alike.
import type { UserNoticeDataOf } from "../http/responses.js";
import type { UserNoticeType } from "./event-types.js";
import { shortAddress, usdcText, utcTime } from "../lib/figures.js";
import type { EventDescription } from "./describe-event.js";
import { tellForced, tellStopFailed, tellStopFilled, type Figure } from "./describe-protection.js";

/** A notice as user-notices.ts renders it. */
export type DescribableNotice = { [K in UserNoticeType]: { type: K; user: string; data: UserNoticeDataOf<K> } }[UserNoticeType];

const fig = (label: string, value: string): Figure => ({ label, value });
const days = (n: number) => `${n} day${n === 1 ? "" : "s"}`;
const tradingFor = (vault: string | null, account: string) => (vault ? `vault ${shortAddress(vault)}` : `account ${shortAddress(account)}`);

const ENTRIES: { [K in UserNoticeType]: { title: string; tell(d: UserNoticeDataOf<K>): [string, Figure[]] } } = {
  ProposalSigned: {
    title: "Proposal signed",
    tell: (d) => [
      `The ${d.role} ${shortAddress(d.signedBy)} signed proposal #${d.proposal} (${usdcText(d.initialBalance)} USDC until ${utcTime(d.dealDeadline)}): ` +
        `sign it before ${utcTime(d.validUntil)} to deploy the vault (npx tradevault proposals accept ${d.proposal})`,
      [fig("proposal", String(d.proposal)), fig("signed by", d.signedBy), fig("initial balance", `${usdcText(d.initialBalance)} USDC`),
        fig("deadline", utcTime(d.dealDeadline)), fig("sign before", utcTime(d.validUntil))],
    ],
  },
  AgentExpiring: {
    title: "Agent key expiring",
    tell: (d) => [
      `The agent key trading ${tradingFor(d.vault, d.account)} expires in ${days(d.daysLeft)} (${utcTime(d.validUntil)}): approve its successor (npx tradevault agent approve)`,
      [fig("agent", d.agent), fig("account", d.account), fig("expires", utcTime(d.validUntil))],
    ],
  },
  AgentLapsed: {
    title: "Agent key expired",
    tell: (d) => [
      `The agent key trading ${tradingFor(d.vault, d.account)} expired at ${utcTime(d.validUntil)}: no order can be placed until a new one is approved (npx tradevault agent approve)`,
      [fig("agent", d.agent), fig("account", d.account), fig("expired", utcTime(d.validUntil))],
    ],
  },
  StopFailed: { title: "Stop did not fill", tell: (d) => tellStopFailed(d, `Account ${shortAddress(d.account)}`) },
  StopFilled: { title: "Stop held", tell: (d) => tellStopFilled(d, `Account ${shortAddress(d.account)}`) },
  Liquidated: { title: "Liquidated", tell: (d) => tellForced(d, `Account ${shortAddress(d.account)}`, "liquidated") },
  Deleveraged: { title: "Auto-deleveraged", tell: (d) => tellForced(d, `Account ${shortAddress(d.account)}`, "auto-deleveraged") },
};

export function describeNotice(notice: DescribableNotice): EventDescription {
  const entry = ENTRIES[notice.type] as { title: string; tell(d: unknown): [string, Figure[]] };
  const [sentence, figures] = entry.tell(notice.data);
  return { title: entry.title, sentence, figures };
}
