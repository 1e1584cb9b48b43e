// How `tradevault sim` reaches the sim's paper controls. On the daemon's own machine (its URL is
// loopback) it uses the sim's own loopback port: unbounded, open to local users in every
// --sim-controls mode. From elsewhere that port is out of reach, so it goes through the daemon's API
// (/api/sim/*: the caller's own account, bounded moves, and the operator token when the daemon
// asks for it). --via picks either way explicitly.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { CliContext } from "./context.js";
import { CliError, usageError } from "./errors.js";

export type Via = "sim" | "api";

/** What /healthz says about the sim (only the keys the CLI reads). */
interface SimHealth {
  exchange?: { kind: string; url: string };
  sim?: { controls: "open" | "operator" | "off" } | null;
}

export const OPERATOR_HEADER = "X-Tradevault-Operator";

function isLoopbackUrl(url: string): boolean {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, "");
  return host === "localhost" || host === "::1" || /^127\./.test(host);
}

export function chooseVia(ctx: CliContext, given: string | undefined): Via {
  if (given === undefined) return isLoopbackUrl(ctx.url) ? "sim" : "api";
  if (given === "sim" || given === "api") return given;
  throw usageError(`--via must be sim or api, not ${given}`);
}

/** A control the daemon's API does not relay: only the sim's own loopback port serves it. */
export function simPortOnly(ctx: CliContext, given: string | undefined, command: string): void {
  if (given === "api") throw usageError(`${command} has no --via api: the daemon's API does not offer it`, "run it on the daemon's machine (--via sim)");
  if (chooseVia(ctx, given) === "api") {
    throw new CliError("SIM_PORT_ONLY", `${command} goes to the sim's own loopback port, which ${ctx.url} is not on`, 1,
      "run it on the daemon's machine, with --url pointing at the daemon's loopback address");
  }
}

export const health = (ctx: CliContext) => ctx.api().request<SimHealth>("GET", "/healthz");

/** POSTs to the sim's own loopback control port (found through /healthz). */
export async function viaSim<T>(ctx: CliContext, path: string, body: unknown): Promise<T> {
  const h = await health(ctx);
  if (h.exchange?.kind !== "sim") {
    throw new CliError("NOT_SIM", `the daemon at ${ctx.url} trades on ${h.exchange?.kind ?? "an unknown exchange"}, not the sim`, 1);
  }
  const res = await fetch(`${h.exchange.url}${path}`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  const text = await res.text();
  if (!res.ok) throw new CliError("SIM_REFUSED", `the sim refused: ${refusalOf(text)}`, 1);
  return JSON.parse(text) as T;
}

/** The sim's controls answer `{ok: false, error: "<message>"}`: the message, not the JSON around it. */
function refusalOf(text: string): string {
  try {
    const error = (JSON.parse(text) as { error?: unknown }).error;
    if (typeof error === "string" && error) return error;
  } catch {
    // not JSON: the text as it came
  }
  return text.trim().split("\n")[0]!.slice(0, 300) || "no reason given";
}

/** The daemon's /api/sim/* routes exist only when it embeds the sim. */
export async function apiControls(ctx: CliContext): Promise<"open" | "operator" | "off"> {
  const h = await health(ctx);
  if (!h.sim) {
    throw new CliError("NOT_SIM", `the daemon at ${ctx.url} does not run the embedded sim, so it has no /api/sim controls`, 1,
      h.exchange?.kind === "sim" ? `on the sim's machine, point other tools at ${h.exchange.url}` : undefined);
  }
  return h.sim.controls;
}

/**
 * The operator token: TRADEVAULT_OPERATOR_TOKEN, or the file the daemon wrote in its data directory
 * (--data-dir, when the CLI runs on the daemon's machine but reaches it by a public address).
 */
export function operatorToken(ctx: CliContext, dataDir: string | undefined): string {
  const fromEnv = ctx.io.env.TRADEVAULT_OPERATOR_TOKEN?.trim();
  if (fromEnv) return fromEnv;
  if (dataDir !== undefined) {
    const path = join(dataDir, "keys", "operator.token");
    try {
      return readFileSync(path, "utf8").trim();
    } catch (e) {
      throw new CliError("OPERATOR_TOKEN_UNREADABLE", `cannot read the operator token at ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, 1);
    }
  }
  throw new CliError("OPERATOR_TOKEN_NEEDED", `the daemon at ${ctx.url} lets only its operator move sim prices (--sim-controls operator)`, 1,
    "set TRADEVAULT_OPERATOR_TOKEN to the contents of <data-dir>/keys/operator.token, or pass --data-dir <dir> on the daemon's machine");
}
