// Deployment of the contracts and the test token's owner actions. The daemon deploys on first start
// of a chain; on the embedded chain it also deploys and mints the test settlement token.
import { ContractFactory, getAddress, getCreateAddress } from "ethers";
import type { ContractRunner, Signer } from "ethers";
import { AppError } from "../errors.js";
import { loadArtifact } from "./artifacts.js";
import type { ContractName } from "./artifacts.js";
import { contractAt, read, send, txResult } from "./tx.js";
import type { TxResult } from "./tx.js";

export interface DeployedContract extends TxResult {
  address: string;
}

async function deploy(signer: Signer, name: ContractName, args: unknown[], nonce?: number): Promise<DeployedContract> {
  const { abi, bytecode } = loadArtifact(name);
  return read(`deploy ${name}`, async () => {
    const contract = await new ContractFactory(abi, bytecode, signer).deploy(...args, nonce === undefined ? {} : { nonce });
    const receipt = await contract.deploymentTransaction()!.wait();
    if (!receipt?.contractAddress) throw new AppError("INTERNAL", `${name} deployment has no contract address`);
    return { address: getAddress(receipt.contractAddress), ...txResult(receipt) };
  });
}

export interface DeploySettlementTokenParams {
  /** Who may mint (the operator); defaults to the deploying signer. */
  owner?: string;
}

/** Deploys the 6-decimal test token (tUSDC). Local chains only. */
export async function deploySettlementToken(signer: Signer, params: DeploySettlementTokenParams = {}): Promise<DeployedContract> {
  return deploy(signer, "TestUSDC", [params.owner ?? (await signer.getAddress())]);
}

export interface DeployVaultSystemParams {
  /** A 6-decimal ERC-20 (the implementation's constructor checks). */
  settlementToken: string;
  operator: string;
}

export interface DeployedVaultSystem {
  factory: string;
  implementation: string;
  txHashes: [string, string];
  gasUsed: bigint;
}

/**
 * Deploys the TradingVault implementation, then the factory. The implementation takes the factory's
 * address as an immutable, so that address is predicted from the signer's next two nonces (sent
 * explicitly); the factory's constructor checks the pairing. Run it while nothing else sends from
 * this signer.
 */
export async function deployVaultSystem(signer: Signer, params: DeployVaultSystemParams): Promise<DeployedVaultSystem> {
  const from = await signer.getAddress();
  const nonce = await read("read nonce", () => signer.getNonce("pending"));
  const predicted = getCreateAddress({ from, nonce: nonce + 1 });
  const impl = await deploy(signer, "TradingVault", [predicted, params.settlementToken], nonce);
  const factory = await deploy(signer, "VaultFactory", [impl.address, params.operator], nonce + 1);
  if (factory.address !== predicted) throw new AppError("INTERNAL", "factory landed at an unexpected address");
  return {
    factory: factory.address,
    implementation: impl.address,
    txHashes: [impl.txHash, factory.txHash],
    gasUsed: impl.gasUsed + factory.gasUsed,
  };
}

/** Mints test tokens (owner only; the sim faucet on the embedded chain). */
export async function mintSettlementToken(signer: Signer, p: { token: string; to: string; amount: bigint }): Promise<TxResult> {
  const c = contractAt("TestUSDC", p.token, signer);
  return txResult(await send("mint", () => c.getFunction("mint")(p.to, p.amount)));
}

export async function readTokenBalance(runner: ContractRunner, p: { token: string; account: string }): Promise<bigint> {
  const c = contractAt("TestUSDC", p.token, runner);
  return read("read token balance", () => c.getFunction("balanceOf")(p.account));
}
