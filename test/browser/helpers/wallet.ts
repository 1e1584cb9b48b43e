// An EIP-1193 wallet injected into a page the way an extension injects one: announced through
// EIP-6963 and set as window.ethereum, before any of the page's scripts run. Its key stays on the Node
// side (page.exposeFunction); it enforces what real wallets enforce: typed data is signed only when
// its domain.chainId is the active chain, and a chain must be added (wallet_addEthereumChain) before
// wallet_switchEthereumChain accepts it (4902 until then).
import { getBytes, type HDNodeWallet, type Wallet } from "ethers";
import type { BrowserContext } from "playwright-core";

export interface WalletCall {
  method: string;
  params: unknown[];
  error?: { code: number; message: string };
}

interface Answer {
  result?: unknown;
  error?: { code: number; message: string };
  events?: [string, unknown][];
}

const PAGE_SIDE = `(() => {
  const listeners = {};
  const provider = {
    isTestWallet: true,
    async request({ method, params }) {
      const out = JSON.parse(await window.__testWallet(JSON.stringify({ method, params: params ?? [] })));
      for (const [event, arg] of out.events ?? []) for (const l of listeners[event] ?? []) l(arg);
      if (out.error) throw Object.assign(new Error(out.error.message), { code: out.error.code });
      return out.result;
    },
    on(event, l) { (listeners[event] ??= []).push(l); return provider; },
    removeListener(event, l) { listeners[event] = (listeners[event] ?? []).filter((x) => x !== l); return provider; },
  };
  const info = Object.freeze({ uuid: "6b0b3f2e-8d1c-4c3e-9a57-2f1c0d9e7a11", name: "Test Wallet", rdns: "org.tradevault.test-wallet",
    icon: "data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciLz4=" });
  const announce = () => window.dispatchEvent(new CustomEvent("eip6963:announceProvider", { detail: Object.freeze({ info, provider }) }));
  window.addEventListener("eip6963:requestProvider", announce);
  announce();
  window.ethereum = provider;
})();`;

export class TestWallet {
  readonly calls: WalletCall[] = [];
  private active: number;
  private readonly known: Set<number>;

  constructor(readonly key: Wallet | HDNodeWallet, opts: { chainId?: number } = {}) {
    this.active = opts.chainId ?? 1;
    this.known = new Set([this.active]);
  }

  get address(): string {
    return this.key.address;
  }

  get chainId(): number {
    return this.active;
  }

  /** Injects this wallet into every page the context opens from now on. */
  async install(context: BrowserContext): Promise<void> {
    await context.exposeFunction("__testWallet", async (json: string) => JSON.stringify(await this.answer(JSON.parse(json))));
    await context.addInitScript(PAGE_SIDE);
  }

  private async answer(req: { method: string; params: unknown[] }): Promise<Answer> {
    const call: WalletCall = { method: req.method, params: req.params };
    this.calls.push(call);
    try {
      return await this.handle(req.method, req.params);
    } catch (e) {
      const error = { code: (e as { code?: number }).code ?? -32603, message: (e as Error).message };
      call.error = error;
      return { error };
    }
  }

  private async handle(method: string, params: unknown[]): Promise<Answer> {
    switch (method) {
      case "eth_requestAccounts":
      case "eth_accounts":
        return { result: [this.address] };
      case "eth_chainId":
        return { result: hex(this.active) };
      case "personal_sign": {
        const [message, from] = params as [string, string];
        this.ownAddress(from);
        return { result: await this.key.signMessage(getBytes(message)) };
      }
      case "eth_signTypedData_v4": {
        const [from, json] = params as [string, string];
        this.ownAddress(from);
        const td = JSON.parse(json) as { domain: { chainId?: unknown }; types: Record<string, unknown>; message: Record<string, unknown> };
        const chainId = Number(td.domain.chainId);
        if (chainId !== this.active) {
          throw rpcError(-32602, `Provided chainId "${chainId}" must match the active chainId "${this.active}"`);
        }
        const { EIP712Domain: _domain, ...types } = td.types;
        return { result: await this.key.signTypedData(td.domain as never, types as never, td.message) };
      }
      case "wallet_switchEthereumChain": {
        const id = Number((params[0] as { chainId: string }).chainId);
        if (!this.known.has(id)) throw rpcError(4902, `Unrecognized chain ID "${hex(id)}". Try adding the chain using wallet_addEthereumChain first.`);
        this.active = id;
        return { result: null, events: [["chainChanged", hex(id)]] };
      }
      case "wallet_addEthereumChain": {
        const p = params[0] as { chainId: string; rpcUrls?: string[]; chainName?: string };
        if (!p.rpcUrls?.length || !p.chainName) throw rpcError(-32602, "wallet_addEthereumChain needs chainName and rpcUrls");
        const id = Number(p.chainId);
        this.known.add(id);
        // MetaMask offers to switch right after adding; the user accepts.
        this.active = id;
        return { result: null, events: [["chainChanged", hex(id)]] };
      }
      default:
        throw rpcError(4200, `The test wallet does not support ${method}`);
    }
  }

  private ownAddress(from: string): void {
    if (from.toLowerCase() !== this.address.toLowerCase()) throw rpcError(4100, `${from} is not an account of this wallet`);
  }
}

const hex = (n: number) => `0x${n.toString(16)}`;
const rpcError = (code: number, message: string) => Object.assign(new Error(message), { code });
