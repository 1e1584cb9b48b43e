// API wallets (agents): approval by the master, expiry, replacement rules, and mapping a recovered
// signer to the account it acts for. One unnamed agent and up to `maxNamed` named ones per account;
// approving again under the same name (or unnamed) replaces the previous agent of that name.
import type { SimRepo } from "./store/repo.js";
import type { Agent } from "./types.js";
import type { ApproveAgentAction } from "./wire.js";

export interface AgentPolicy {
  /** Validity of an agent approved without " valid_until <ms>" in its name. */
  defaultValidityMs: number;
  maxNamed: number;
}

export const DEFAULT_AGENT_POLICY: AgentPolicy = { defaultValidityMs: 180 * 24 * 60 * 60 * 1000, maxNamed: 3 };

const VALID_UNTIL = /^(.*) valid_until (\d+)$/;

/** "bot valid_until 1700000000000" → name "bot" with that expiry; null/"" is the unnamed agent. */
export function parseAgentName(raw: string | null): { name: string; validUntil?: number } {
  const m = VALID_UNTIL.exec(raw ?? "");
  return m ? { name: m[1], validUntil: Number(m[2]) } : { name: raw ?? "" };
}

/** The account a signer acts for: itself if it has an account, else the master of a live agent. */
export function actingUser(repo: SimRepo, signer: string, now: number): string | undefined {
  if (repo.getAccount(signer)) return signer;
  const agent = repo.getAgent(signer);
  return agent && agent.validUntil > now ? agent.user : undefined;
}

function checkAgent(repo: SimRepo, master: string, agent: Agent, now: number, policy: AgentPolicy): string | undefined {
  if (agent.name.length > 16) return "Agent name must be at most 16 characters.";
  if (agent.validUntil <= now) return "Agent valid_until must be in the future.";
  if (agent.address === master || repo.getAccount(agent.address)) return `Agent address ${agent.address} is a user.`;
  const existing = repo.getAgent(agent.address);
  if (existing && existing.user !== master) return `Agent address ${agent.address} is already used.`;
  const othersNamed = repo
    .agentsOf(master)
    .filter((a) => a.name !== "" && a.name !== agent.name && a.address !== agent.address && a.validUntil > now);
  if (agent.name !== "" && othersNamed.length >= policy.maxNamed) return "Too many named agents.";
  return undefined;
}

/** Registers the agent for `master`; returns an error text instead when the approval is refused. */
export function approveAgent(
  repo: SimRepo,
  master: string,
  action: ApproveAgentAction,
  now: number,
  policy: AgentPolicy,
): string | undefined {
  const { name, validUntil } = parseAgentName(action.agentName);
  const agent: Agent = {
    address: action.agentAddress,
    user: master,
    name,
    validUntil: validUntil ?? now + policy.defaultValidityMs,
    approvedAt: now,
  };
  const error = checkAgent(repo, master, agent, now, policy);
  if (error) return error;
  // Same name (or the unnamed slot) replaces the previous agent; expired ones are pruned.
  for (const old of repo.agentsOf(master)) {
    if (old.address !== agent.address && (old.name === name || old.validUntil <= now)) repo.deleteAgent(old.address);
  }
  repo.saveAgent(agent);
  return undefined;
}

/** Hyperliquid's extraAgents: the live named agents. */
export function extraAgents(repo: SimRepo, user: string, now: number): unknown[] {
  return repo
    .agentsOf(user)
    .filter((a) => a.name !== "" && a.validUntil > now)
    .map((a) => ({ address: a.address, name: a.name, validUntil: a.validUntil }));
}
