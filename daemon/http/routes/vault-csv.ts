// The CSV answers of GET /api/vaults/:address/trades and /events (docs/design.md "Exports"): the JSON
// fields flattened, times as ISO 8601 UTC, values as exact decimal text; an event's data is one JSON
// column (its fields differ by type). Without `limit` every row in the filters is written.
import type { Context } from "koa";
import type { VaultExports } from "../../vaults/vault-exports.js";
import type { CsvExport } from "../route.js";
import type { CsvRows, CsvValue } from "../csv.js";

const iso = (ms: number) => new Date(ms).toISOString();

/** The limit the client gave, or none (every row): the JSON default of 100 is a page size, not an export's. */
const givenLimit = (ctx: Context, parsed: number): number | undefined => (ctx.query.limit === undefined ? undefined : parsed);

async function* mapPages<T>(pages: AsyncIterable<T[]>, row: (item: T) => CsvValue[]): AsyncGenerator<CsvValue[][]> {
  for await (const page of pages) yield page.map(row);
}

const day = (ms: number | undefined) => (ms === undefined ? "" : `-${iso(ms).slice(0, 10)}`);

type TradeQuery = { limit: number; offset: number; startDate?: number; endDate?: number };
type EventQuery = TradeQuery;
type VaultParams = { address: string };

export const TRADE_COLUMNS = ["id", "timestamp", "symbol", "side", "size", "price", "pnl", "fee"];
export const EVENT_COLUMNS = ["id", "time", "type", "txHash", "blockNumber", "data"];

export function tradesCsv(exports: VaultExports): CsvExport<TradeQuery, VaultParams> {
  return {
    description: `Asked for with Accept: text/csv or ?format=csv: a header row (${TRADE_COLUMNS.join(",")}), then every trade in the dates newest first (or limit of them), timestamp as ISO 8601 UTC`,
    async open({ ctx, params, query, user }): Promise<CsvRows> {
      const pages = await exports.trades(user.address, params.address, {
        limit: givenLimit(ctx, query.limit), offset: query.offset, startMs: query.startDate, endMs: query.endDate,
      });
      return {
        filename: `trades-${params.address}${day(query.startDate)}${day(query.endDate)}.csv`,
        header: TRADE_COLUMNS,
        pages: mapPages(pages, (t) => [t.id, iso(t.timeMs), t.symbol, t.side, t.size, t.price, t.pnl, t.fee]),
      };
    },
  };
}

export function eventsCsv(exports: VaultExports): CsvExport<EventQuery, VaultParams> {
  return {
    description: `Asked for with Accept: text/csv or ?format=csv: a header row (${EVENT_COLUMNS.join(",")}), then every event in the dates newest first (or limit of them), time as ISO 8601 UTC, data as the JSON object of GET /api/vaults/{address}/events`,
    async open({ ctx, params, query, user }): Promise<CsvRows> {
      const pages = await exports.events(user.address, params.address, {
        limit: givenLimit(ctx, query.limit), offset: query.offset,
        startS: query.startDate === undefined ? undefined : Math.ceil(query.startDate / 1000),
        endS: query.endDate === undefined ? undefined : Math.floor(query.endDate / 1000),
      });
      return {
        filename: `events-${params.address}${day(query.startDate)}${day(query.endDate)}.csv`,
        header: EVENT_COLUMNS,
        pages: mapPages(pages, (e) => [e.id, iso(e.time * 1000), e.type, e.txHash, e.blockNumber, JSON.stringify(e.data)]),
      };
    },
  };
}
