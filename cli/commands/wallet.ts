// tradevault wallet create|import|list|address: encrypted keystores that never leave this machine.
import { readFileSync } from "node:fs";
import { Command } from "commander";
import { Wallet } from "ethers";
import { contextFor } from "../context.js";
import { usageError } from "../errors.js";
import { keyValues, printResult, table, type Io } from "../output.js";
import { askPassword, askSecret } from "../prompt.js";
import type { WalletInfo } from "../keystore.js";

const show = (w: WalletInfo) => keyValues([["wallet", w.name], ["address", w.address], ["keystore", w.path]]);

const REASONS: Record<string, string> = { ENOENT: "no such file", EACCES: "permission denied", EISDIR: "it is a folder" };

function readKeyFile(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? "";
    throw usageError(`cannot read --private-key-file ${path}: ${REASONS[code] ?? code ?? "unreadable"}`);
  }
}

function readPrivateKey(raw: string): Wallet {
  const key = raw.trim();
  const hex = key.startsWith("0x") ? key : `0x${key}`;
  if (!/^0x[0-9a-fA-F]{64}$/.test(hex)) throw usageError("the private key must be 32 bytes of hex");
  return new Wallet(hex);
}

export function walletCommand(io: Io): Command {
  const wallet = new Command("wallet").description("manage local wallets (encrypted keystores)");

  wallet
    .command("create <name>")
    .description("create a new random wallet")
    .action(async (name: string, _o, cmd: Command) => {
      const ctx = contextFor(cmd, io);
      const password = await askPassword(io, ctx.json, "Password for the new wallet", { confirm: true });
      const info = await ctx.keystore.save(name, Wallet.createRandom(), password);
      printResult(io, ctx.json, info, () => show(info));
    });

  wallet
    .command("import <name>")
    .description("import a private key (from TRADEVAULT_PRIVATE_KEY, --private-key-file, or a prompt)")
    .option("--private-key-file <file>", "read the hex private key from a file")
    .action(async (name: string, o: { privateKeyFile?: string }, cmd: Command) => {
      const ctx = contextFor(cmd, io);
      const raw = o.privateKeyFile
        ? readKeyFile(o.privateKeyFile)
        : await askSecret(io, ctx.json, "TRADEVAULT_PRIVATE_KEY", "Private key (hex)");
      const key = readPrivateKey(raw);
      const password = await askPassword(io, ctx.json, "Password to encrypt it with", { confirm: true });
      const info = await ctx.keystore.save(name, key, password);
      printResult(io, ctx.json, info, () => show(info));
    });

  wallet
    .command("list")
    .description("list local wallets")
    .action((_o, cmd: Command) => {
      const ctx = contextFor(cmd, io);
      const wallets = ctx.keystore.list();
      printResult(io, ctx.json, { wallets }, () =>
        table(["NAME", "ADDRESS"], wallets.map((w) => [w.name, w.address])),
      );
    });

  wallet
    .command("address <name>")
    .description("print a wallet's address")
    .action((name: string, _o, cmd: Command) => {
      const ctx = contextFor(cmd, io);
      const info = ctx.keystore.info(name);
      printResult(io, ctx.json, { name: info.name, address: info.address }, () => info.address);
    });

  return wallet;
}
