// A vault's trades and events as pages for an export (the CSV answers of GET /api/vaults/:address/
// trades and /events): the same rows, order and filters as the JSON pages, but every row when no
// limit is given, read one page at a time as the client takes them. Each page is a keyset step
// (sequence numbers), so rows stored while an export runs neither repeat nor shift it.
import * as tradesRepo from "../db/vault-trades-repo.js";
import * as vaultsRepo from "../db/vaults-repo.js";
import type { Executor } from "../db/store.js";
import { vaultFor } from "./vault-access.js";
import { rowToEvent, rowToTrade, type VaultEvent } from "./vault-views.js";

/** Rows per query. */
export const EXPORT_PAGE = 1_000;

export interface ExportedTrade extends Omit<ReturnType<typeof rowToTrade>, "timestamp"> {
  /** Unix ms (the JSON page rounds to seconds). */
  timeMs: number;
}

export interface ExportWindow {
  /** Every row when absent. */
  limit?: number;
  offset: number;
}

export function createVaultExports(deps: { db: Executor }) {
  const { db } = deps;

  async function* tradePages(vault: string, top: number, bottom: number): AsyncGenerator<ExportedTrade[]> {
    for (let t = top; t >= bottom; t -= EXPORT_PAGE) {
      const rows = await tradesRepo.tradesBetween(db, vault, Math.max(bottom, t - EXPORT_PAGE + 1), t);
      yield rows.map((r) => {
        const { timestamp: _s, ...trade } = rowToTrade(r);
        return { ...trade, timeMs: r.time_ms };
      });
    }
  }

  async function* eventPages(vault: string, beforeSeq: number, skip: number, limit: number, times: { startS?: number; endS?: number }): AsyncGenerator<VaultEvent[]> {
    for (let before = beforeSeq, left = limit; left > 0;) {
      const rows = await vaultsRepo.vaultEventsBefore(db, vault, { beforeSeq: before, limit: Math.min(EXPORT_PAGE, skip + left), ...times });
      if (rows.length === 0) return;
      before = rows.at(-1)!.seq;
      const kept = rows.slice(skip);
      skip = Math.max(0, skip - rows.length);
      if (kept.length === 0) continue;
      const page = kept.slice(0, left);
      left -= page.length;
      yield page.map(rowToEvent);
    }
  }

  return {
    /** Access is checked now, before the caller starts answering; the pages are read as they are taken. */
    async trades(user: string, address: string, w: ExportWindow & { startMs?: number; endMs?: number }): Promise<AsyncIterable<ExportedTrade[]>> {
      const v = (await vaultFor(db, user, address)).vault;
      const { lo, hi } = await tradesRepo.tradeSeqRange(db, v.address, w);
      const top = hi - w.offset;
      const bottom = w.limit === undefined ? lo : Math.max(lo, top - w.limit + 1);
      return tradePages(v.address, top, bottom);
    },

    async events(user: string, address: string, w: ExportWindow & { startS?: number; endS?: number }): Promise<AsyncIterable<VaultEvent[]>> {
      const v = (await vaultFor(db, user, address)).vault;
      const count = await vaultsRepo.eventCount(db, v.address);
      const dated = w.startS !== undefined || w.endS !== undefined;
      // Undated, the offset is a step back in the dense sequence; dated, that many matching events are skipped.
      const before = dated ? count + 1 : count - w.offset + 1;
      return eventPages(v.address, before, dated ? w.offset : 0, w.limit ?? Infinity, { startS: w.startS, endS: w.endS });
    },
  };
}

export type VaultExports = ReturnType<typeof createVaultExports>;
