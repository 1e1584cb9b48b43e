// The phrasebook of a refusal's next steps: services say what the caller can do (errors.ts
// NextStep), and this says how, in the words of whoever asked. The CLI sends X-Tradevault-Client:
// cli, the dashboard `dashboard`; anyone else (curl, a script, another frontend) gets the API's route.
import type { NextStep } from "../errors.js";

export const CLIENT_HEADER = "X-Tradevault-Client";

export const AUDIENCES = ["http", "cli", "dashboard"] as const;
export type Audience = (typeof AUDIENCES)[number];

/** The header's audience; no header or an unknown value is `http`. */
export function audienceOf(header: string | undefined): Audience {
  const value = header?.trim().toLowerCase();
  return value === "cli" || value === "dashboard" ? value : "http";
}

type Phrase<A extends NextStep["action"]> = { goal: string } & Record<Audience, (step: Extract<NextStep, { action: A }>) => string>;

/** Commands as typed in the project folder, where `tradevault` is not on PATH before `npm link`. */
const cli = (args: string) => `npx tradevault ${args}`;

const PHRASES: { [A in NextStep["action"]]: Phrase<A> } = {
  closeVault: {
    goal: "to close the vault",
    http: (s) => `POST /api/vaults/${s.vault}/close`,
    cli: (s) => cli(`vaults close ${s.vault}`),
    dashboard: () => "the Close vault button on the vault's page (Vaults tab)",
  },
  unpauseVault: {
    goal: "for the trader to unpause it",
    http: (s) => `POST /api/vaults/${s.vault}/unpause`,
    cli: (s) => cli(`vaults unpause ${s.vault}`),
    dashboard: () => "the Unpause button on the vault's page (Vaults tab)",
  },
  fundVault: {
    goal: "for the investor to fund the escrow",
    http: (s) => `POST /api/vaults/${s.vault}/fund/prepare with amount ${s.amount}, sign its permit with the wallet, then POST /api/vaults/${s.vault}/fund`,
    cli: (s) => cli(`vaults fund ${s.vault} ${s.amount}`),
    dashboard: (s) => `the Fund escrow (permit) button on the vault's page (Vaults tab), with ${s.amount} USDC`,
  },
  approveAgent: {
    goal: "to approve an agent",
    http: () => "GET /api/agent, sign its approval with the wallet, then POST /api/agent/approve",
    cli: () => cli("agent approve"),
    dashboard: () => "the Approve agent button on the Account tab",
  },
  signIn: {
    goal: "to sign in",
    http: () => "POST /api/auth/challenge, sign its message with the wallet, then POST /api/auth/login",
    cli: () => cli("login --wallet <name>"),
    dashboard: () => "the Connect wallet button",
  },
  takeEventTicket: {
    goal: "to open the event stream",
    http: () => "POST /api/events/ticket for a new ticket, then GET /api/events?ticket=<ticket>",
    cli: () => cli("events"),
    dashboard: () => "reload the page",
  },
  simFaucet: {
    goal: "on the sim, for test USDC",
    http: () => "POST /api/sim/faucet",
    cli: () => cli("sim faucet <amount>"),
    dashboard: () => "the Get test funds button on the Sim tab",
  },
};

/** One step: what it does and how, e.g. "to close the vault: npx tradevault vaults close 0x…". */
export function phraseStep(step: NextStep, audience: Audience): string {
  const phrase = PHRASES[step.action] as Phrase<NextStep["action"]>;
  return `${phrase.goal}: ${phrase[audience](step as never)}`;
}

/** The message with its next steps as one more sentence; the message alone when there are none. */
export function withNextSteps(message: string, steps: readonly NextStep[], audience: Audience): string {
  if (steps.length === 0) return message;
  const text = steps.map((s) => phraseStep(s, audience)).join("; ");
  return `${message.replace(/[\s.]+$/, "")}. ${text[0]!.toUpperCase()}${text.slice(1)}`;
}

/**
 * The details with the steps as `next`, for clients that say them their own way. INVALID_INPUT's
 * per-field list stays a list: its steps are in the message only.
 */
export function withNextDetails(details: unknown, steps: readonly NextStep[]): unknown {
  if (steps.length === 0) return details;
  if (details === undefined) return { next: steps };
  if (typeof details === "object" && details !== null && !Array.isArray(details)) return { ...details, next: steps };
  return details;
}
