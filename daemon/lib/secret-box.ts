// Encryption at rest for agent keys: AES-256-GCM under a 32-byte key taken from TRADEVAULT_SECRET
// (64 hex characters, or any passphrase, stretched with scrypt) or from a 0600 key file generated on
// first start. Losing the key file loses the agents (they can be re-approved), never funds.
import { createCipheriv, createDecipheriv, randomBytes, scryptSync } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

export interface SecretBox {
  seal(plaintext: string): string;
  open(sealed: string): string;
}

const VERSION = "v1";

export function secretBox(key: Buffer): SecretBox {
  if (key.length !== 32) throw new Error("secret box key must be 32 bytes");
  return {
    seal(plaintext) {
      const iv = randomBytes(12);
      const cipher = createCipheriv("aes-256-gcm", key, iv);
      const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
      return `${VERSION}:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64")}`;
    },
    open(sealed) {
      const [version, data] = sealed.split(":");
      if (version !== VERSION || !data) throw new Error("unknown sealed format");
      const raw = Buffer.from(data, "base64");
      const decipher = createDecipheriv("aes-256-gcm", key, raw.subarray(0, 12));
      decipher.setAuthTag(raw.subarray(12, 28));
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString("utf8");
    },
  };
}

/** The key from TRADEVAULT_SECRET, else from `keyFile` (created with mode 0600 when missing). */
export function loadSecretKey(opts: { secret?: string; keyFile: string }): Buffer {
  if (opts.secret) {
    if (/^[0-9a-fA-F]{64}$/.test(opts.secret)) return Buffer.from(opts.secret, "hex");
    return scryptSync(opts.secret, "tradevault/secret-box/v1", 32);
  }
  if (!existsSync(opts.keyFile)) {
    mkdirSync(dirname(opts.keyFile), { recursive: true, mode: 0o700 });
    writeFileSync(opts.keyFile, randomBytes(32).toString("hex"), { mode: 0o600, flag: "wx" });
  }
  chmodSync(opts.keyFile, 0o600);
  const text = readFileSync(opts.keyFile, "utf8").trim();
  if (!/^[0-9a-fA-F]{64}$/.test(text)) throw new Error(`${opts.keyFile} does not hold a 32-byte hex key`);
  return Buffer.from(text, "hex");
}
