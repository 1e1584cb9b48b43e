// The browser wallet (EIP-1193), found through EIP-6963 announcements with window.ethereum as the
// fallback. The page never holds a key: it asks the wallet for accounts, personal_sign (sign-in),
// eth_signTypedData_v4 (agent approval, terms, permits) and chain changes.
export interface Eip1193 {
  request(args: { method: string; params?: unknown[] | object }): Promise<any>;
  on?(event: string, listener: (...args: any[]) => void): void;
}

interface Announced {
  info: { uuid: string; name: string; icon: string; rdns: string };
  provider: Eip1193;
}

export interface TypedData {
  domain: Record<string, unknown>;
  types: Record<string, { name: string; type: string }[]>;
  primaryType: string;
  message: Record<string, unknown>;
}

const announced: Announced[] = [];

/** Listens for EIP-6963 announcements and asks wallets to announce themselves. */
export function discoverWallets(onChange: () => void): void {
  window.addEventListener("eip6963:announceProvider", (e) => {
    const detail = (e as CustomEvent<Announced>).detail;
    if (!detail?.provider || announced.some((a) => a.info.uuid === detail.info.uuid)) return;
    announced.push(detail);
    onChange();
  });
  window.dispatchEvent(new Event("eip6963:requestProvider"));
}

export function walletNames(): string[] {
  return announced.map((a) => a.info.name);
}

function provider(): Eip1193 {
  const p = announced[0]?.provider ?? (window as unknown as { ethereum?: Eip1193 }).ethereum;
  if (!p) throw new WalletError("no browser wallet found: install MetaMask, Rabby or another EIP-1193 wallet");
  return p;
}

export class WalletError extends Error {}

/** The wallet's error, with its code, in words a user can act on. */
async function ask<T>(method: string, params?: unknown[]): Promise<T> {
  try {
    return (await provider().request({ method, params })) as T;
  } catch (e) {
    const err = e as { code?: number; message?: string };
    if (err.code === 4001) throw new WalletError("you declined the request in your wallet");
    throw Object.assign(new WalletError(`wallet: ${err.message ?? String(e)}`), { code: err.code });
  }
}

export async function connect(): Promise<string> {
  const accounts = await ask<string[]>("eth_requestAccounts");
  if (!accounts[0]) throw new WalletError("the wallet shared no account");
  return accounts[0];
}

export function onAccountsChanged(listener: (accounts: string[]) => void): void {
  try {
    provider().on?.("accountsChanged", listener);
  } catch {
    /* no wallet yet */
  }
}

/** EIP-191 personal_sign of a text message (the sign-in message), hex-encoded as wallets expect. */
export function personalSign(address: string, message: string): Promise<string> {
  const hex = "0x" + Array.from(new TextEncoder().encode(message), (b) => b.toString(16).padStart(2, "0")).join("");
  return ask<string>("personal_sign", [hex, address]);
}

export const activeChainId = async (): Promise<number> => Number.parseInt(await ask<string>("eth_chainId"), 16);

/**
 * Makes `chainId` the wallet's active chain: switch to it, and if the wallet does not know it yet
 * (4902), add it first. Wallets sign typed data only for the active chain.
 */
export async function ensureChain(chainId: number, rpcUrl: string, name: string): Promise<void> {
  if ((await activeChainId()) === chainId) return;
  const hex = "0x" + chainId.toString(16);
  try {
    await ask("wallet_switchEthereumChain", [{ chainId: hex }]);
  } catch (e) {
    if ((e as { code?: number }).code !== 4902) throw e;
    await ask("wallet_addEthereumChain", [{
      chainId: hex, chainName: name, rpcUrls: [rpcUrl], nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    }]);
    if ((await activeChainId()) !== chainId) await ask("wallet_switchEthereumChain", [{ chainId: hex }]);
  }
}

export function signTypedData(address: string, td: TypedData): Promise<string> {
  return ask<string>("eth_signTypedData_v4", [address, JSON.stringify(td)]);
}
