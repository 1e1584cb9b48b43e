// The deployments record: which contracts the daemon uses on a chain, kept per chain in
// <dataDir>/chain/<key>.json ("31337.json" for the embedded chain, "external-<chainId>.json" for an
// RPC chain, so an external Hardhat node on 31337 never mixes with the embedded one). Written
// atomically (temp file + rename) so a crash never leaves half a record.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { getAddress } from "ethers";
import { readDeploymentRow, writeDeploymentRow } from "../db/chain-repo.js";
import type { Executor } from "../db/database.js";
import { AppError } from "../errors.js";

export interface DeploymentRecord {
  chainId: number;
  kind: "embedded" | "external";
  factory: string;
  implementation: string;
  token: string;
  operator: string;
  /** Block of the factory's deployment: where the indexer starts. */
  deployBlock: number;
  /** Embedded chain only: block 0's timestamp (Unix seconds), which a rebuild must reproduce. */
  genesisTime?: number;
  /** Unix seconds. */
  createdAt: number;
}

export function chainKey(kind: "embedded" | "external", chainId: number): string {
  return kind === "embedded" ? String(chainId) : `external-${chainId}`;
}

export function recordPath(dataDir: string, key: string): string {
  return join(dataDir, "chain", `${key}.json`);
}

export function readDeployment(dataDir: string, key: string): DeploymentRecord | undefined {
  const path = recordPath(dataDir, key);
  if (!existsSync(path)) return undefined;
  try {
    const r = JSON.parse(readFileSync(path, "utf8")) as DeploymentRecord;
    return { ...r, factory: getAddress(r.factory), implementation: getAddress(r.implementation), token: getAddress(r.token) };
  } catch (e) {
    throw new AppError("INTERNAL", `deployments record ${path} is unreadable`, { cause: e });
  }
}

export function writeDeployment(dataDir: string, key: string, record: DeploymentRecord): void {
  const path = recordPath(dataDir, key);
  mkdirSync(join(dataDir, "chain"), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(record, null, 2)}\n`);
  renameSync(tmp, path);
}

const normalized = (r: DeploymentRecord): DeploymentRecord =>
  ({ ...r, factory: getAddress(r.factory), implementation: getAddress(r.implementation), token: getAddress(r.token) });

/** The record in the store (shared by every daemon on it), else this data directory's copy. */
export async function findDeployment(db: Executor, dataDir: string, key: string): Promise<DeploymentRecord | undefined> {
  const row = await readDeploymentRow(db, key);
  return row === undefined ? readDeployment(dataDir, key) : normalized(JSON.parse(row) as DeploymentRecord);
}

/** Records in the store and in this data directory. */
export async function recordDeployment(db: Executor, dataDir: string, key: string, record: DeploymentRecord): Promise<void> {
  await writeDeploymentRow(db, key, JSON.stringify(record));
  writeDeployment(dataDir, key, record);
}
