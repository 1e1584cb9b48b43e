// The daemon's sim faucet gives each account at most FAUCET_DAILY_CAP_USDC per UTC day. The tally is
// in the daemon's database, so a restart forgets nothing. A grant is reserved before the sim credits
// it and handed back if the sim refuses: two requests at once cannot both take the last of the day.
import type { UnitOfWork } from "../db/store.js";
import { grantedOn, setGranted } from "../db/faucet-repo.js";
import { lockName } from "../db/name-lock.js";
import { AppError } from "../errors.js";
import { formatDecimal, parseDecimal } from "../lib/decimal.js";

export const FAUCET_DAILY_CAP_USDC = "100000";
const CAP = parseDecimal(FAUCET_DAILY_CAP_USDC, 6); // base units
const DAY_MS = 86_400_000;

export const usdc = (base: bigint) => formatDecimal(base, 6);

export interface Reservation {
  day: number;
  /** What the account may still take today after this grant, in base units. */
  left: bigint;
}

export function faucetAllowance(deps: { work: UnitOfWork; clock: () => number }) {
  return {
    /** Counts `amount` against today's cap, or throws INVALID_INPUT saying the cap and what is left. */
    reserve(account: string, amount: bigint): Promise<Reservation> {
      const day = Math.floor(deps.clock() / DAY_MS);
      return deps.work.write(async (trx) => {
        await lockName(trx, `faucet:${account}`);
        const granted = await grantedOn(trx, account, day);
        const left = CAP - granted;
        if (amount > left) {
          const message = `the sim faucet gives at most ${FAUCET_DAILY_CAP_USDC} USDC per account per UTC day; ${usdc(left)} USDC left today`;
          throw new AppError("INVALID_INPUT", message, { details: [{ field: "body.amount", message }] });
        }
        await setGranted(trx, account, day, granted + amount);
        return { day, left: left - amount };
      });
    },
    /** Hands a reservation back (the sim did not credit it). */
    release(account: string, day: number, amount: bigint): Promise<void> {
      return deps.work.write(async (trx) => {
        await lockName(trx, `faucet:${account}`);
        const granted = await grantedOn(trx, account, day);
        await setGranted(trx, account, day, granted > amount ? granted - amount : 0n);
      });
    },
  };
}
