// Which JSON-RPC methods the embedded chain's public endpoint passes to the node. Wallets and the CLI
// read the chain and send transactions they signed themselves (eth_sendRawTransaction); everything
// that controls the node or makes it sign or send for someone is the daemon's alone.
//
// Refused: every namespace but the read-only ones Anvil serves (so anvil_*, evm_*, hardhat_*,
// debug_*, personal_*, wallet_*, and any namespace a later Anvil adds), and within eth_ whatever signs
// or sends on the node's side: eth_sign*, eth_sendTransaction, and Anvil's eth_sendUnsignedTransaction
// (which executes a transaction from any address, no signature asked).
import type { JsonRpcCall, JsonRpcReply } from "./ipc-client.js";

const READ_ONLY_NAMESPACES = ["eth", "net", "web3", "txpool", "ots", "trace", "erigon"];
const RAW_SEND = "eth_sendRawTransaction";

/** JSON-RPC 2.0's codes. */
export const RPC_PARSE_ERROR = -32700;
export const RPC_INVALID_REQUEST = -32600;
export const RPC_METHOD_NOT_FOUND = -32601;
export const RPC_INTERNAL_ERROR = -32603;

export function isPublicMethod(method: string): boolean {
  const cut = method.indexOf("_");
  if (cut <= 0 || !READ_ONLY_NAMESPACES.includes(method.slice(0, cut))) return false;
  const m = method.toLowerCase(); // Anvil matches names exactly; refusing every casing costs nothing
  return m === RAW_SEND.toLowerCase() || !(m.startsWith("eth_sign") || m.startsWith("eth_send"));
}

export const rpcError = (id: unknown, code: number, message: string): JsonRpcReply => ({
  jsonrpc: "2.0", id: id ?? null, error: { code, message },
});

/** One element of a request: to the node, or answered here. */
export type Verdict = { forward: JsonRpcCall } | { answer: JsonRpcReply };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

export function judge(element: unknown): Verdict {
  if (!isObject(element) || typeof element.method !== "string") {
    return { answer: rpcError(isObject(element) ? element.id : null, RPC_INVALID_REQUEST, "invalid request: an object with a string method") };
  }
  const call = element as unknown as JsonRpcCall;
  if (isPublicMethod(call.method)) return { forward: call };
  return {
    answer: rpcError(call.id, RPC_METHOD_NOT_FOUND,
      `method ${call.method} is not served here: this endpoint reads the chain and takes signed transactions (eth_sendRawTransaction) only`),
  };
}

/** Notifications (no id member) get no answer, per JSON-RPC 2.0. */
export const wantsAnswer = (element: unknown): boolean => !isObject(element) || "id" in element;
