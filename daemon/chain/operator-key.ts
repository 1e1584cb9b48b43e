// The operator (oracle) key: generated on first start as 0x hex in a file only its owner can read
// (0600, folder 0700), or read from `--operator-key-file` (hex, or an encrypted JSON keystore).
// Never logged.
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { Wallet, hexlify, randomBytes } from "ethers";
import { AppError } from "../errors.js";

export interface OperatorKey {
  privateKey: string;
  address: string;
  /** True when this call generated the key. */
  created: boolean;
}

function parseKey(text: string, path: string): string {
  const key = text.trim();
  if (!/^(0x)?[0-9a-fA-F]{64}$/.test(key)) {
    throw new AppError("INTERNAL", `operator key file ${path} does not hold a 32-byte hex private key`);
  }
  return key.startsWith("0x") ? key : `0x${key}`;
}

/** Reads the key at `path`, or generates one there when the file does not exist. */
export function loadOrCreateOperatorKey(path: string): OperatorKey {
  const st = statSync(path, { throwIfNoEntry: false });
  if (st) {
    // A key readable by others is tightened rather than refused: the daemon created it this way.
    if ((st.mode & 0o077) !== 0) chmodSync(path, 0o600);
    const privateKey = parseKey(readFileSync(path, "utf8"), path);
    return { privateKey, address: new Wallet(privateKey).address, created: false };
  }
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const wallet = new Wallet(hexlify(randomBytes(32))); // a key, not a mnemonic wallet (its PBKDF2 costs ~100 ms)
  // "wx": two daemons starting at once must not overwrite each other's fresh key.
  try {
    writeFileSync(path, `${wallet.privateKey}\n`, { mode: 0o600, flag: "wx" });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EEXIST") return loadOrCreateOperatorKey(path);
    throw e;
  }
  return { privateKey: wallet.privateKey, address: wallet.address, created: true };
}

/** Reads an operator key file given by the user: 0x hex, or an ethers/geth encrypted JSON keystore. */
export async function readOperatorKeyFile(path: string, password?: string): Promise<OperatorKey> {
  const text = readFileSync(path, "utf8");
  if (!text.trimStart().startsWith("{")) {
    const privateKey = parseKey(text, path);
    return { privateKey, address: new Wallet(privateKey).address, created: false };
  }
  if (password === undefined) throw new AppError("INVALID_INPUT", `operator key file ${path} is an encrypted keystore: a password is needed`);
  try {
    const wallet = await Wallet.fromEncryptedJson(text, password);
    return { privateKey: wallet.privateKey, address: wallet.address, created: false };
  } catch (e) {
    throw new AppError("INVALID_INPUT", `cannot decrypt the operator keystore ${path}`, { cause: e });
  }
}
