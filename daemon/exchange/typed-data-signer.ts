// An agent key as the SDK's wallet, signing EIP-712 typed data with the type encoders and domain
// hashes built once. ethers' Wallet.signTypedData builds three encoders from the types and hashes the
// constant domain again on every call, which cost an order more than the signature itself (bench
// order-path). The digest is EIP-712's, and the signature ethers' own (RFC 6979, so the same bytes).
import { concat, keccak256, TypedDataEncoder, type TypedDataDomain, type TypedDataField } from "ethers";
import type { Signer } from "./types.js";

/** What the SDK asks of a viem-style local account: an address and signTypedData({...}). */
export interface TypedDataSigner {
  address: `0x${string}`;
  signTypedData(params: {
    domain: TypedDataDomain;
    types: Record<string, TypedDataField[]>;
    primaryType: string;
    message: Record<string, unknown>;
  }): Promise<`0x${string}`>;
}

/** Keyed by content, not identity: the SDK builds fresh domain and types objects for every action. */
function memo<K, V>(key: (k: K) => string, make: (k: K) => V): (k: K) => V {
  const cache = new Map<string, V>();
  return (k) => {
    const id = key(k);
    let v = cache.get(id);
    if (v === undefined) {
      v = make(k);
      cache.set(id, v);
    }
    return v;
  };
}

// A handful of shapes (the SDK's action types); the process-wide caches stay that small.
const domainHash = memo((d: TypedDataDomain) => JSON.stringify(d), (d) => TypedDataEncoder.hashDomain(d));
const encoderFor = memo((t: Record<string, TypedDataField[]>) => JSON.stringify(t), (t) => TypedDataEncoder.from(t));

export function typedDataSigner(wallet: Signer): TypedDataSigner {
  return {
    address: wallet.address as `0x${string}`,
    async signTypedData({ domain, types, primaryType, message }) {
      // The SDK declares EIP712Domain among the types for viem; ethers derives it from the domain.
      const { EIP712Domain: _, ...structs } = types;
      const digest = keccak256(concat(["0x1901", domainHash(domain), encoderFor(structs).hashStruct(primaryType, message)]));
      return wallet.signingKey.sign(digest).serialized as `0x${string}`;
    },
  };
}
