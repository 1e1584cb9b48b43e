// The one signature check of a sign-in: who signed an EIP-191 (personal_sign) message. ethers'
// verifyMessage is this plus work a login does not need: it checks the recovered public key is on the
// curve again (recovery made it there) and lays the address out in EIP-55, one keccak more. Comparing
// lowercase hex instead keeps the check to one hash of the message, one recovery and one hash of the
// key (bench login measures this very function as its baseline).
import { hashMessage, keccak256, SigningKey } from "ethers";

/** The lowercase 0x address whose key signed `message`, or undefined when the signature recovers none. */
export function recoverSigner(message: string, signature: string): string | undefined {
  let publicKey: string;
  try {
    publicKey = SigningKey.recoverPublicKey(hashMessage(message), signature);
  } catch {
    return undefined;
  }
  // Uncompressed "0x04" + x + y: the address is the last 20 bytes of keccak256(x || y).
  return `0x${keccak256(`0x${publicKey.substring(4)}`).substring(26)}`;
}
