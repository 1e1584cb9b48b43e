// Whether 65 bytes can be a secp256k1 signature at all, before anyone verifies it against a message.
// ethers' Signature.from accepts more than the verifiers behind it do: it takes any r, and an s up to
// 2^255 (its own `s` getter and OpenZeppelin's ECDSA then refuse one above n/2), so a signature it
// parsed could still throw deep inside a service or revert on-chain. Refused here, once, instead.
// N: the order of secp256k1's group, as ethers exports it.
import { N, Signature, SigningKey, id } from "ethers";

/**
 * Recovery finds the signer's point R from r and v alone, whatever the digest; only one s in n fails
 * over a given digest. So a signature that recovers a key over this digest recovers one over any.
 */
const PROBE_DIGEST = id("tradevault: is this an ECDSA signature?");

/** 0x and 65 bytes of hex, the only text signatureProblem reads. */
export const SIGNATURE_HEX = /^0x[0-9a-fA-F]{130}$/;

/** Why `hex` is no signature anyone could verify; undefined when it can be one. */
export function signatureProblem(hex: string): string | undefined {
  if (!SIGNATURE_HEX.test(hex)) return "is not 0x and 65 bytes of hex";
  const r = BigInt(hex.slice(0, 66));
  const s = BigInt(`0x${hex.slice(66, 130)}`);
  const v = Number.parseInt(hex.slice(130, 132), 16);
  if (![0, 1, 27, 28].includes(v)) return "has a v other than 27 or 28 (or 0 or 1)";
  if (r === 0n || r >= N || s === 0n || s >= N) return "has an r or s of 0 or beyond the curve's order";
  if (s > N / 2n) return "has a high s (EIP-2: s must be at most half the curve's order)";
  try {
    SigningKey.recoverPublicKey(PROBE_DIGEST, hex);
  } catch {
    return "has an r that is no point of the curve";
  }
  return undefined;
}

/** The same signature with v as 27 or 28, the form the contracts' ecrecover and the exchange take. */
export function canonicalSignature(hex: string): string {
  return Signature.from(hex).serialized;
}
