// The embedded chain: Hardhat's network (EDR) in-process with an explicit, fixed configuration (never
// the working directory's hardhat.config), served over HTTP JSON-RPC on 127.0.0.1 only.
//
// Every setting here is part of what makes a rebuild reproduce the old chain exactly: no genesis
// accounts (the genesis state depends on nothing but the hardfork), base fee 0 (so it never moves and
// any replayed fee still qualifies), a fixed gas limit and hardfork, and the genesis time passed in.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createRequire } from "node:module";
import { AppError } from "../errors.js";

export const EMBEDDED_CHAIN_ID = 31337;
/** Matches the contracts' EVM target (cancun) and HyperEVM. */
const HARDFORK = "cancun";
const BLOCK_GAS_LIMIT = 30_000_000;

/** The EIP-1193 surface of Hardhat's provider. */
export interface Eip1193 {
  request(args: { method: string; params?: unknown[] }): Promise<unknown>;
}

export interface EmbeddedNode {
  url: string;
  /** In-process access, used by the rebuild before the RPC server listens. */
  rpc: Eip1193;
  /** Starts answering on 127.0.0.1:<port> (0 = ephemeral); returns the URL. */
  listen(port: number): Promise<string>;
  stop(): Promise<void>;
}

interface HardhatInternals {
  createHardhatNetworkProvider(config: Record<string, unknown>, logger: { enabled: boolean }): Promise<Eip1193>;
  JsonRpcHandler: new (provider: Eip1193) => { handleHttp: (req: unknown, res: unknown) => void };
}

// Hardhat 2 is CommonJS without an exports map; these internals are what `hardhat node` itself uses.
function hardhatInternals(): HardhatInternals {
  const require = createRequire(import.meta.url);
  const { createHardhatNetworkProvider } = require("hardhat/internal/hardhat-network/provider/provider");
  const { JsonRpcHandler } = require("hardhat/internal/hardhat-network/jsonrpc/handler");
  return { createHardhatNetworkProvider, JsonRpcHandler };
}

/** Hardhat's network settings; everything but the genesis time is fixed. */
function networkConfig(genesisTime: number): Record<string, unknown> {
  return {
    hardfork: HARDFORK,
    chainId: EMBEDDED_CHAIN_ID,
    networkId: EMBEDDED_CHAIN_ID,
    blockGasLimit: BLOCK_GAS_LIMIT,
    minGasPrice: 0n,
    automine: true,
    intervalMining: 0,
    // One sender (the operator) means nonce order anyway; fifo keeps a replayed block's order.
    mempoolOrder: "fifo",
    chains: new Map(),
    genesisAccounts: [],
    allowUnlimitedContractSize: false,
    // A mined revert is reported by its receipt, not as an RPC error (the sender settles it).
    throwOnTransactionFailures: false,
    // Simulations must fail with the revert data so it can be decoded.
    throwOnCallFailures: true,
    // Bursts of transactions share a second, as on a real chain: otherwise every automined block
    // pushes the chain clock a second ahead of the wall clock (and of the exchange's timestamps).
    allowBlocksWithSameTimestamp: true,
    initialBaseFeePerGas: 0,
    initialDate: new Date(genesisTime * 1000),
    enableTransientStorage: false,
    enableRip7212: false,
  };
}

/** Creates the in-process chain; `genesisTime` (Unix seconds) is block 0's timestamp. */
export async function createEmbeddedNode(opts: { genesisTime: number }): Promise<EmbeddedNode> {
  const hh = hardhatInternals();
  const rpc = await hh.createHardhatNetworkProvider(networkConfig(opts.genesisTime), { enabled: false });
  const handler = new hh.JsonRpcHandler(rpc);
  const server = createServer((req, res) => handler.handleHttp(req, res));
  let url = "";

  return {
    get url() {
      return url;
    },
    rpc,
    async listen(port) {
      const addr = await new Promise<AddressInfo>((resolve, reject) => {
        server.once("error", reject);
        server.listen(port, "127.0.0.1", () => {
          server.off("error", reject);
          resolve(server.address() as AddressInfo);
        });
      }).catch((e: unknown) => {
        throw new AppError("CHAIN_UNAVAILABLE", `embedded chain cannot listen on 127.0.0.1:${port}`, { cause: e });
      });
      url = `http://127.0.0.1:${addr.port}`;
      return url;
    },
    async stop() {
      if (!server.listening) return;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Keep-alive connections (ethers holds some) would otherwise delay the close by seconds.
      server.closeAllConnections();
      await closed;
    },
  };
}
