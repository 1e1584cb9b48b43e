// Addresses in EIP-55 form (mixed-case checksum). Each costs a keccak-256 (about 20 µs here), and the
// same few addresses come back again and again: a sign-in's challenge and login name the same one, a
// user's requests name their vaults. So the last few thousand are kept, keyed by their lowercase form.
import { getAddress } from "ethers";

const MAX_KEPT = 4_096;
const kept = new Map<string, string>();

/** `address` (0x and 40 hex digits, any case) in EIP-55 form; getAddress's error for anything else. */
export function checksumAddress(address: string): string {
  const lower = address.toLowerCase();
  let out = kept.get(lower);
  if (out === undefined) {
    out = getAddress(lower);
    // Past the bound the map starts over: cheaper than an LRU, and a miss only costs the keccak.
    if (kept.size >= MAX_KEPT) kept.clear();
    kept.set(lower, out);
  }
  return out;
}
