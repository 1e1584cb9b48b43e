// Wallets as ethers encrypted JSON keystores (scrypt + AES-128-CTR), one file per name.
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { getAddress, Wallet, type HDNodeWallet } from "ethers";
import { CliError, usageError } from "./errors.js";
import { readJsonFile, writePrivateFile } from "./home.js";

const NAME = /^[A-Za-z0-9_-]{1,64}$/;

export interface WalletInfo {
  name: string;
  address: string;
  path: string;
}

export function createKeystore(home: string) {
  const dir = join(home, "wallets");
  const pathOf = (name: string) => {
    if (!NAME.test(name)) throw usageError(`invalid wallet name "${name}"`, "use letters, digits, - and _ (at most 64)");
    return join(dir, `${name}.json`);
  };
  const info = (name: string): WalletInfo => {
    const path = pathOf(name);
    const json = readJsonFile<{ address?: string } | null>(path, null);
    if (!json?.address) {
      throw new CliError("WALLET_NOT_FOUND", `no wallet named "${name}"`, 1, "list wallets with: npx tradevault wallet list");
    }
    return { name, address: getAddress(`0x${json.address.replace(/^0x/, "")}`), path };
  };

  return {
    dir,
    info,
    list(): WalletInfo[] {
      let files: string[] = [];
      try {
        files = readdirSync(dir).filter((f) => f.endsWith(".json"));
      } catch {
        return [];
      }
      return files.map((f) => info(f.slice(0, -5))).sort((a, b) => a.name.localeCompare(b.name));
    },
    async save(name: string, wallet: Wallet | HDNodeWallet, password: string): Promise<WalletInfo> {
      const path = pathOf(name);
      const json = await wallet.encrypt(password);
      try {
        writePrivateFile(path, json, { exclusive: true });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === "EEXIST") {
          throw new CliError("WALLET_EXISTS", `a wallet named "${name}" already exists`, 1, "pick another name");
        }
        throw err;
      }
      return { name, address: wallet.address, path };
    },
    async unlock(name: string, password: string): Promise<Wallet | HDNodeWallet> {
      const { path } = info(name);
      try {
        return await Wallet.fromEncryptedJson(JSON.stringify(readJsonFile(path, {})), password);
      } catch {
        throw new CliError("BAD_PASSWORD", `cannot unlock wallet "${name}": wrong password`, 1, "check TRADEVAULT_PASSWORD");
      }
    },
  };
}

export type Keystore = ReturnType<typeof createKeystore>;
