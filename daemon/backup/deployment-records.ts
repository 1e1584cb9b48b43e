// The data directory's records of the contracts it uses on an external chain
// (chain/external-<chainId>.json), carried into the moved database's deployments table when the
// source database has no row for that chain (daemons from before the table wrote only the file).
// Daemons sharing a database find the factory there; without it, one started from another data
// directory would find no factory and deploy a second one.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type pg from "pg";
import { AppError } from "../errors.js";

const EXTERNAL_RECORD = /^(external-\d+)\.json$/;

export interface ChainRecord {
  /** The chain's key, as the daemon names it (the file's name). */
  key: string;
  file: string;
  /** The record as one line of JSON, as the daemon stores it. */
  record: string;
}

export function externalChainRecords(dataDir: string): ChainRecord[] {
  const dir = join(dataDir, "chain");
  if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory()) return [];
  return readdirSync(dir).sort().flatMap((name) => {
    const key = EXTERNAL_RECORD.exec(name)?.[1];
    if (!key) return [];
    const file = join(dir, name);
    try {
      const parsed = JSON.parse(readFileSync(file, "utf8")) as { factory?: unknown };
      if (typeof parsed.factory !== "string") throw new Error("it names no factory");
      return [{ key, file, record: JSON.stringify(parsed) }];
    } catch (e) {
      throw new AppError("INVALID_INPUT", `the deployment record ${file} is unreadable (${(e as Error).message}); nothing was copied`, { cause: e });
    }
  });
}

/** Inserts the records the target's deployments table lacks; returns those added. */
export async function addMissingRecords(client: pg.ClientBase, records: ChainRecord[]): Promise<ChainRecord[]> {
  const added: ChainRecord[] = [];
  for (const r of records) {
    const res = await client.query("insert into deployments (key, record) values ($1, $2) on conflict (key) do nothing", [r.key, r.record]);
    if (res.rowCount === 1) added.push(r);
  }
  return added;
}
