// Vaults for daemons that run as their own processes on an external chain and a remote sim: each
// investor a fresh wallet and its own exchange account, credited by the sim's faucet over HTTP; both
// parties sign the EIP-712 terms, and a funded wallet of the benchmark's (not the operator: the
// factory lets anyone send signed terms) sends createVault. The daemons index the vaults from the
// factory's events, as they would a vault created by any other client.
import { hexlify, JsonRpcProvider, NonceManager, randomBytes, toQuantity, Wallet } from "ethers";
import { createVault } from "../../daemon/chain/contracts.js";
import { buildVaultTermsTypedData, ethersTypedDataArgs, randomSalt, type VaultTerms } from "../../daemon/chain/terms.js";
import { simFaucet, type AnyWallet } from "./daemon-host.js";

export interface ChainPlace {
  rpcUrl: string;
  chainId: number;
  factory: string;
}

/** `count` vaults traded by `trader`, each with `usdc` on its account; their addresses. */
export async function createChainVaults(place: ChainPlace, simUrl: string, trader: AnyWallet, count: number, usdc = 10_000): Promise<string[]> {
  const provider = new JsonRpcProvider(place.rpcUrl, place.chainId, { staticNetwork: true });
  const sender = Wallet.createRandom().connect(provider);
  await provider.send("anvil_setBalance", [sender.address, toQuantity(10n ** 21n)]);
  const signer = new NonceManager(sender);
  const investors = Array.from({ length: count }, () => new Wallet(hexlify(randomBytes(32))));
  await Promise.all(investors.map((w) => simFaucet(simUrl, w.address, usdc)));
  // A vault counts ledger updates from the second after its creation block: the credit must be older.
  await new Promise((r) => setTimeout(r, 1_050 - (Date.now() % 1_000)));
  const nowS = Math.floor(Date.now() / 1000);
  const addresses: string[] = [];
  try {
    for (const investor of investors) {
      const terms: VaultTerms = {
        investor: investor.address, trader: trader.address, exchangeAccount: investor.address,
        initialBalance: BigInt(usdc) * 1_000_000n, maxDrawdownBps: 5_000, dailyDrawdownBps: 2_500,
        dealDeadline: nowS + 30 * 86_400, traderShareBps: 2_000, breachPolicy: 0, validUntil: nowS + 86_400, salt: randomSalt(),
      };
      const args = ethersTypedDataArgs(buildVaultTermsTypedData({ chainId: place.chainId, factory: place.factory, terms }));
      const [investorSignature, traderSignature] = await Promise.all([investor.signTypedData(...args), trader.signTypedData(...args)]);
      addresses.push((await createVault(signer, { factory: place.factory, terms, investorSignature, traderSignature })).vault);
    }
  } finally {
    provider.destroy();
  }
  return addresses;
}
