// The embedded sim's paper controls as the API offers them to signed-in users. The sim's own loopback
// controls trust whoever runs the machine; these serve remote users too, so they are bounded: the
// faucet by a daily cap per account, price moves by --sim-controls (who) and price-bounds.ts (how far).
import type { SimControlsMode } from "../config.js";
import type { UnitOfWork } from "../db/store.js";
import { AppError } from "../errors.js";
import { parseDecimal, toDecimalString } from "../lib/decimal.js";
import { handleControl, type ControlTarget } from "../sim/controls.js";
import { faucetAllowance, usdc } from "./faucet-allowance.js";
import { isOperatorToken, OPERATOR_HEADER } from "./operator-token.js";
import { checkPriceMove } from "./price-bounds.js";

/** What the controls need of the sim: its control handlers, its markets and their marks. */
export interface PaperSim extends ControlTarget {
  readonly markets: readonly { name: string }[];
  mark(symbol: string): string;
}

export interface PaperControlsDeps {
  sim: PaperSim;
  work: UnitOfWork;
  clock: () => number;
  mode: SimControlsMode;
  /** The operator token; required when `mode` is "operator". */
  operatorToken?: string;
}

/** Relays to the sim's control handler and translates its answer at this boundary. */
async function relay(sim: ControlTarget, path: string, body: unknown): Promise<Record<string, unknown>> {
  const r = await handleControl(sim, path, body);
  const json = r.json as { ok?: boolean; error?: string } & Record<string, unknown>;
  if (r.status === 400) throw new AppError("INVALID_INPUT", `the sim refused: ${json.error ?? "bad input"}`);
  if (r.status !== 200) throw new AppError("EXCHANGE_UNAVAILABLE", `the sim failed: ${json.error ?? r.status}`);
  const { ok: _ok, ...rest } = json;
  return rest;
}

function usdcBaseUnits(amount: string | number): bigint {
  let base: bigint;
  try {
    base = parseDecimal(toDecimalString(amount), 6);
  } catch {
    base = -1n;
  }
  if (base <= 0n) {
    const message = "must be a positive USDC amount with at most 6 decimals";
    throw new AppError("INVALID_INPUT", `body.amount: ${message}`, { details: [{ field: "body.amount", message }] });
  }
  return base;
}

/** The controls that move markets (price, deleveraging) follow --sim-controls. */
function admit(deps: PaperControlsDeps, what: string, operatorToken: string | undefined): void {
  if (deps.mode === "off") throw new AppError("NOT_FOUND", "sim price controls are off on this daemon (--sim-controls off)");
  if (deps.mode === "operator" && !isOperatorToken(deps.operatorToken!, operatorToken)) {
    throw new AppError("FORBIDDEN", `${what} on this daemon takes the operator token (header ${OPERATOR_HEADER}; the daemon keeps it in <data-dir>/keys/operator.token)`);
  }
}

function unknownSymbol(startMarks: ReadonlyMap<string, string>, symbol: string): AppError {
  const message = `unknown symbol ${symbol}; the sim lists ${[...startMarks.keys()].join(", ")}`;
  return new AppError("INVALID_INPUT", message, { details: [{ field: "body.symbol", message }] });
}

export function paperControls(deps: PaperControlsDeps) {
  const { sim, mode } = deps;
  if (mode === "operator" && !deps.operatorToken) throw new Error("--sim-controls operator needs the operator token");
  const allowance = faucetAllowance(deps);
  // The band of each market is fixed at start: a run of 20% moves cannot walk a price to 10^12.
  const startMarks = new Map(sim.markets.map((m) => [m.name, sim.mark(m.name)]));

  return {
    mode,
    /** Credits the caller's own sim account, within today's cap. */
    async faucet(user: string, amount: string | number) {
      const base = usdcBaseUnits(amount);
      const { day, left } = await allowance.reserve(user, base);
      try {
        const credited = await relay(sim, "/sim/faucet", { user, amount: usdc(base) });
        return { ...credited, leftToday: usdc(left) };
      } catch (e) {
        await allowance.release(user, day, base);
        throw e;
      }
    },
    /** Moves a mark for a caller the mode admits, within the bounds. */
    async setPrice(symbol: string, price: string | number, operatorToken: string | undefined) {
      admit(deps, "moving sim prices", operatorToken);
      const start = startMarks.get(symbol);
      if (start === undefined) throw unknownSymbol(startMarks, symbol);
      const text = typeof price === "number" ? toDecimalString(price) : price;
      checkPriceMove(symbol, text, sim.mark(symbol), start);
      return relay(sim, "/sim/price", { symbol, price: text });
    },
    /** Auto-deleverages an account's position, for a caller the mode admits (a price move could liquidate it as well). */
    async deleverage(user: string, symbol: string, size: string | number | undefined, operatorToken: string | undefined) {
      admit(deps, "auto-deleveraging sim positions", operatorToken);
      if (!startMarks.has(symbol)) throw unknownSymbol(startMarks, symbol);
      const text = typeof size === "number" ? toDecimalString(size) : size;
      return relay(sim, "/sim/adl", { user, symbol, ...(text === undefined ? {} : { size: text }) });
    },
  };
}

export type PaperControls = ReturnType<typeof paperControls>;
