// Fee fields for the operator's transactions: EIP-1559 where the chain has a base fee (HyperEVM and
// the embedded chain do), legacy gasPrice otherwise; and the re-pricing of a stuck transaction.
import type { JsonRpcProvider, Transaction } from "ethers";

export type Fees =
  | { type: 2; maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }
  | { type: 0; gasPrice: bigint };

export interface FeeSnapshot {
  fees: Fees;
  /** The latest block's gas limit: no single transaction may ask for more. */
  blockGasLimit: bigint;
}

async function priorityFee(provider: JsonRpcProvider, baseFee: bigint): Promise<bigint> {
  try {
    return BigInt(await provider.send("eth_maxPriorityFeePerGas", []));
  } catch {
    // Not every node answers it; the legacy price minus the base fee is the tip it implies.
    const gasPrice = BigInt(await provider.send("eth_gasPrice", []));
    return gasPrice > baseFee ? gasPrice - baseFee : 0n;
  }
}

/** What a transaction sent now should offer: twice the base fee (room for it to rise) plus the tip. */
export async function currentFees(provider: JsonRpcProvider): Promise<FeeSnapshot> {
  const block = await provider.getBlock("latest");
  if (!block) throw new Error("no latest block");
  const baseFee = block.baseFeePerGas;
  if (baseFee !== null) {
    const tip = await priorityFee(provider, baseFee);
    return { fees: { type: 2, maxPriorityFeePerGas: tip, maxFeePerGas: baseFee * 2n + tip }, blockGasLimit: block.gasLimit };
  }
  return { fees: { type: 0, gasPrice: BigInt(await provider.send("eth_gasPrice", [])) }, blockGasLimit: block.gasLimit };
}

export function feesOf(tx: Transaction): Fees {
  if (tx.type === 2) return { type: 2, maxFeePerGas: tx.maxFeePerGas ?? 0n, maxPriorityFeePerGas: tx.maxPriorityFeePerGas ?? 0n };
  return { type: 0, gasPrice: tx.gasPrice ?? 0n };
}

const up = (v: bigint, percent: number) => (v * BigInt(100 + percent) + 99n) / 100n;
const max = (a: bigint, b: bigint) => (a > b ? a : b);

/**
 * Fees for a replacement of `old`: at least `percent` more on every field (nodes want 10%+ on both
 * the cap and the tip) and never below what the chain asks now. A zero tip still rises (by 1 wei at
 * least) so the replacement is strictly better.
 */
export function bumpFees(old: Fees, now: Fees, percent: number): Fees {
  if (old.type === 2) {
    const tip = max(max(up(old.maxPriorityFeePerGas, percent), old.maxPriorityFeePerGas + 1n), now.type === 2 ? now.maxPriorityFeePerGas : 0n);
    const cap = max(max(up(old.maxFeePerGas, percent), old.maxFeePerGas + 1n), now.type === 2 ? now.maxFeePerGas : now.gasPrice);
    return { type: 2, maxPriorityFeePerGas: tip, maxFeePerGas: max(cap, tip) };
  }
  const price = max(max(up(old.gasPrice, percent), old.gasPrice + 1n), now.type === 0 ? now.gasPrice : now.maxFeePerGas);
  return { type: 0, gasPrice: price };
}

export function feeCeiling(fees: Fees): bigint {
  return fees.type === 2 ? fees.maxFeePerGas : fees.gasPrice;
}
