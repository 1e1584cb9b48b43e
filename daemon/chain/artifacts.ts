// Loads the compiled contracts (ABI + bytecode) that `hardhat compile` writes to <packageRoot>/artifacts.
// The daemon never compiles at run time: `npm run build` (or `prepare`) produced these files.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { InterfaceAbi } from "ethers";
import { AppError } from "../errors.js";
import { packageRoot } from "../lib/package-root.js";

/** Contracts the daemon deploys or calls; the path is relative to artifacts/contracts. */
const SOURCES = {
  TradingVault: "TradingVault.sol",
  VaultFactory: "VaultFactory.sol",
  TestUSDC: "TestUSDC.sol",
  // A malicious token used only by the contract tests; listed so tests load it the same way.
  ReentrantToken: "test/ReentrantToken.sol",
} as const;

export type ContractName = keyof typeof SOURCES;

export interface Artifact {
  contractName: ContractName;
  abi: InterfaceAbi;
  bytecode: string;
}

export function artifactPath(name: ContractName, root = packageRoot()): string {
  return join(root, "artifacts", "contracts", SOURCES[name], `${name}.json`);
}

// Artifacts do not change while the process runs; every binding and revert decoding reads them.
const cache = new Map<string, Artifact>();

/** Reads one artifact. Throws INTERNAL with a hint when the contracts were never compiled. */
export function loadArtifact(name: ContractName, root = packageRoot()): Artifact {
  const path = artifactPath(name, root);
  const hit = cache.get(path);
  if (hit) return hit;
  if (!existsSync(path)) {
    throw new AppError("INTERNAL", `contract artifact ${name} is missing at ${path}`, {
      details: { suggestion: "run `npm run build:contracts`" },
    });
  }
  const json = JSON.parse(readFileSync(path, "utf8")) as { abi: InterfaceAbi; bytecode: string };
  const artifact: Artifact = { contractName: name, abi: json.abi, bytecode: json.bytecode };
  cache.set(path, artifact);
  return artifact;
}

export const CONTRACT_NAMES = Object.keys(SOURCES) as ContractName[];
