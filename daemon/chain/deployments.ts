// The deployments record: which contracts the daemon uses on a chain, kept per chain in
// <dataDir>/chain/<key>.json ("31337.json" for the embedded chain, "external-<chainId>.json" for an
// RPC chain, so an external Hardhat node on 31337 never mixes with the embedded one). Written
// atomically (temp file + rename) so a crash never leaves half a record.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { getAddress } from "ethers";
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
