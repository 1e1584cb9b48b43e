// Liquidations and auto-deleveragings of the exchange accounts the daemon trades for outside any vault,
// told to each account's owner as user notices (Liquidated, Deleveraged). A vault's account has vault
// events for them instead (vaults/vault-balances.ts), and fills while a vault traded the account are
// that vault's. The oracle's upkeep reads the accounts' fills from where the last read stopped (a
// stored cursor), at background priority, longest-unread first and within a share of the exchange's
// request budget; each notice is keyed by account and fill, so a re-read, a restart or a second daemon
// on the same store tells nothing twice.
import type { Logger } from "pino";
import { accountsOutsideVaults } from "../db/agents-repo.js";
import { cursorsOf, saveCursor } from "../db/fill-cursors-repo.js";
import type { Executor, UnitOfWork } from "../db/store.js";
import { closedVaultSpans } from "../db/vaults-repo.js";
import { forcedFillData } from "../exchange/forced-fills.js";
import type { ExchangeAdapter, FillState } from "../exchange/types.js";
import type { UserNotices } from "./user-notices.js";

/** The request weight a minute these reads may take on the venue: a tenth of its 1,200. */
export const FORCED_FILLS_WEIGHT_PER_MINUTE = 120;
/** What one read of an account's fills costs (userFillsByTime; more when it returns many). */
const FILLS_WEIGHT = 20;

/** Accounts read per oracle cycle of `intervalMs` within FORCED_FILLS_WEIGHT_PER_MINUTE (at least one). */
export function accountsPerCycle(intervalMs: number): number {
  return Math.max(1, Math.floor((FORCED_FILLS_WEIGHT_PER_MINUTE * intervalMs) / 60_000 / FILLS_WEIGHT));
}

export interface ForcedFillNoticesDeps {
  db: Executor;
  work: UnitOfWork;
  notices: UserNotices;
  fills: ExchangeAdapter["fills"];
  clock: () => number;
  log: Logger;
  /** Accounts read per sweep at most; undefined reads every one (the sim has no budget). */
  perSweep?: number;
}

interface Due {
  account: string;
  /** Exchange ms the read starts at. */
  from: number;
  readAt: number;
}

export function createForcedFillNotices(deps: ForcedFillNoticesDeps) {
  const { db, work, notices, clock, log } = deps;

  async function readAccount(a: Due, now: number): Promise<void> {
    const fills = await deps.fills(a.account, a.from, { priority: "background" });
    const spans = await closedVaultSpans(db, a.account);
    // Block times are whole seconds: a vault's span ends with the second its close was mined in.
    const inVault = (f: FillState) => spans.some((s) => f.time >= s.from * 1000 && f.time < (s.to + 1) * 1000);
    const forced = fills.filter((f) => f.forced && !inVault(f));
    const through = Math.max(a.from, ...fills.map((f) => f.time));
    await work.write(async (trx) => {
      for (const f of forced) {
        const type = f.forced!.kind === "liquidation" ? "Liquidated" : "Deleveraged";
        // The exchange's trade id names the fill: outside a vault there is no trade row of the daemon's.
        await notices.notifyParty(trx, {
          user: a.account, type, key: `${type}:${a.account}:${f.tid}`, data: { account: a.account, ...forcedFillData(f, String(f.tid)) },
        });
      }
      await saveCursor(trx, a.account, through, now);
    });
  }

  return {
    /** One pass (the oracle's upkeep): the accounts due, each on its own (one that fails waits for the next pass). */
    async sweep(): Promise<void> {
      const now = clock();
      const accounts = await accountsOutsideVaults(db, now);
      const cursors = await cursorsOf(db, accounts.map((a) => a.account));
      const due: Due[] = accounts.map((a) => {
        const c = cursors.get(a.account);
        // Never read: from when the daemon began trading for it.
        return { account: a.account, from: c?.through_ms ?? a.approved_at, readAt: c?.read_at ?? 0 };
      }).sort((x, y) => x.readAt - y.readAt).slice(0, deps.perSweep ?? Infinity);
      for (const a of due) {
        await readAccount(a, now).catch((err) => log.warn({ account: a.account, err: (err as Error).message }, "cannot read the account's fills; the next pass tries again"));
      }
    },
  };
}

export type ForcedFillNotices = ReturnType<typeof createForcedFillNotices>;
