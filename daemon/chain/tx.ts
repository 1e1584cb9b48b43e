// The plumbing every chain action shares: a Contract from an artifact's ABI, sending a transaction
// and waiting for its receipt, reading, picking events out of a receipt. All failures leave as
// AppError (chain-errors.ts).
import { Contract, Interface } from "ethers";
import type { ContractRunner, ContractTransactionResponse, TransactionReceipt } from "ethers";
import { AppError } from "../errors.js";
import { loadArtifact } from "./artifacts.js";
import type { ContractName } from "./artifacts.js";
import { toAppError } from "./chain-errors.js";
import { logsOf } from "./decode.js";
import type { ParsedLog } from "./decode.js";

export interface TxResult {
  txHash: string;
  blockNumber: number;
  gasUsed: bigint;
  /** The whole receipt: its events are the caller's to record. */
  receipt: TransactionReceipt;
}

export function contractInterface(name: ContractName): Interface {
  return new Interface(loadArtifact(name).abi);
}

export function contractAt(name: ContractName, address: string, runner: ContractRunner): Contract {
  return new Contract(address, loadArtifact(name).abi, runner);
}

/**
 * Sends one transaction and waits for its receipt. ethers estimates gas first, which simulates the
 * call: a revert surfaces here, decoded, before anything is broadcast or paid for.
 */
export async function send(action: string, submit: () => Promise<ContractTransactionResponse>): Promise<TransactionReceipt> {
  try {
    const receipt = await (await submit()).wait();
    if (!receipt) throw new AppError("CHAIN_UNAVAILABLE", `${action}: transaction dropped`, { retryable: true });
    return receipt;
  } catch (e) {
    throw toAppError(e, action);
  }
}

export async function read<T>(action: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (e) {
    throw toAppError(e, action);
  }
}

export function txResult(receipt: TransactionReceipt): TxResult {
  return { txHash: receipt.hash, blockNumber: receipt.blockNumber, gasUsed: receipt.gasUsed, receipt };
}

/** The one `name` event `address` emitted in `receipt` (a successful call always emits it). */
export function oneLog(receipt: TransactionReceipt, iface: Interface, name: string, address: string): ParsedLog {
  const [log] = logsOf(receipt, iface, name, address);
  if (!log) throw new AppError("INTERNAL", `receipt ${receipt.hash} has no ${name} event`);
  return log;
}
