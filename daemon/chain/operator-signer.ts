// An ethers Signer for the operator whose sendTransaction goes through the sender's queue and
// journal, so every binding in contracts.ts (which takes a Signer) uses the one sending path. It
// resolves once the transaction is mined (following any re-pricing), handing ethers the mined
// transaction: the binding's own wait() then finds the receipt at once. It cannot sign anything
// else; the operator key stays inside the sender.
import { AbstractSigner, Interface, resolveAddress } from "ethers";
import type { JsonRpcProvider, Provider, TransactionRequest, TransactionResponse, TypedDataDomain, TypedDataField } from "ethers";
import { AppError } from "../errors.js";
import { loadArtifact } from "./artifacts.js";
import type { ContractName } from "./artifacts.js";
import type { TxSender } from "./tx-sender.js";

const KNOWN: ContractName[] = ["VaultFactory", "TradingVault", "TestUSDC"];
let interfaces: Interface[] | undefined;

/** The journal's purpose for a call: the function it calls, or the contract it deploys. */
export function purposeOf(to: string | null, data: string): string {
  if (to === null) {
    const name = KNOWN.find((n) => data.startsWith(loadArtifact(n).bytecode));
    return `deploy:${name ?? "contract"}`;
  }
  interfaces ??= KNOWN.map((n) => new Interface(loadArtifact(n).abi));
  for (const iface of interfaces) {
    const fn = data.length >= 10 ? iface.getFunction(data.slice(0, 10)) : null;
    if (fn) return fn.name;
  }
  return data.length > 2 ? "call" : "transfer";
}

export class OperatorSigner extends AbstractSigner<JsonRpcProvider> {
  readonly #sender: TxSender;

  constructor(sender: TxSender, provider: JsonRpcProvider) {
    super(provider);
    this.#sender = sender;
  }

  override async getAddress(): Promise<string> {
    return this.#sender.address;
  }

  /** The sender's next nonce (deployVaultSystem predicts the factory's address from it). */
  override async getNonce(): Promise<number> {
    return this.#sender.nextNonce();
  }

  override connect(provider: Provider | null): OperatorSigner {
    if (provider !== this.provider) throw new AppError("INTERNAL", "the operator signer is bound to its chain");
    return this;
  }

  override async sendTransaction(tx: TransactionRequest): Promise<TransactionResponse> {
    const to = tx.to == null ? null : await resolveAddress(tx.to, this.provider);
    const data = tx.data ?? "0x";
    const sent = await this.#sender.send({
      to,
      data,
      value: tx.value == null ? undefined : BigInt(tx.value),
      gasLimit: tx.gasLimit == null ? undefined : BigInt(tx.gasLimit),
      nonce: tx.nonce ?? undefined,
      purpose: purposeOf(to, data),
    });
    const mined = await sent.waitMined();
    const response = await this.provider.getTransaction(mined.hash);
    if (!response) throw new AppError("CHAIN_UNAVAILABLE", `mined transaction ${mined.hash} is not visible`, { retryable: true });
    return response;
  }

  override async signTransaction(): Promise<string> {
    throw new AppError("INTERNAL", "operator transactions are signed by the transaction sender only");
  }

  override async signMessage(): Promise<string> {
    throw new AppError("INTERNAL", "the operator signs no messages");
  }

  override async signTypedData(_d: TypedDataDomain, _t: Record<string, TypedDataField[]>, _v: Record<string, unknown>): Promise<string> {
    throw new AppError("INTERNAL", "the operator signs no typed data");
  }
}
