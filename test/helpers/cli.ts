// Runs the CLI in-process (the same main() bin/tradevault calls) with captured output.
import { execFile } from "node:child_process";
import { Writable } from "node:stream";
import { join } from "node:path";
import { encryptKeystoreJson, hexlify, randomBytes, Wallet } from "ethers";
import { main } from "../../cli/main.js";
import { writePrivateFile } from "../../cli/home.js";
import { packageRoot } from "../../daemon/lib/package-root.js";
import type { Check, Prompts } from "../../cli/prompt.js";
import { randomWallet, signIn, type Party, type TestDaemon } from "./daemon.js";

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  json: any;
}

export interface CliOptions {
  /** Make stderr look like a terminal (for spinners). */
  stderrIsTTY?: boolean;
  /** Make stdin look like a terminal; questions are then answered by `prompts`. */
  stdinIsTTY?: boolean;
  prompts?: Prompts;
}

export async function runCli(args: string[], env: Record<string, string>, opts: CliOptions = {}): Promise<CliRun> {
  let stdout = "";
  let stderr = "";
  const sink = (fn: (s: string) => void, tty = false) =>
    Object.assign(
      new Writable({
        write(chunk, _enc, cb) {
          fn(String(chunk));
          cb();
        },
      }),
      tty ? { isTTY: true } : {},
    );
  const code = await main(["node", "tradevault", ...args], {
    stdout: sink((s) => (stdout += s)),
    stderr: sink((s) => (stderr += s), opts.stderrIsTTY),
    stdinIsTTY: opts.stdinIsTTY ?? false,
    env,
    ...(opts.prompts ? { prompts: opts.prompts } : {}),
  });
  let json: unknown;
  try {
    json = JSON.parse(stdout);
  } catch {
    json = undefined;
  }
  return { code, stdout, stderr, json };
}

/**
 * bin/tradevault in a child process, as a user runs it (the built dist/: npm run build:ts first).
 * Asynchronous, so a daemon under test in this process keeps answering.
 */
export function spawnCli(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [join(packageRoot(), "bin", "tradevault"), ...args], { env: { ...process.env, ...env } },
      (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }));
  });
}

/**
 * A terminal user who types the given answers in order. Like a real prompt, an answer the
 * question's validate refuses is not returned: the next answer is taken instead.
 */
export function scriptedPrompts(answers: string[]) {
  const asked: Array<{ message: string; answer: string; refused?: string }> = [];
  const next = (message: string, validate?: Check): string => {
    for (;;) {
      const answer = answers.shift();
      if (answer === undefined) throw new Error(`no scripted answer left for "${message}"`);
      const verdict = validate ? validate(answer) : true;
      asked.push({ message, answer, ...(verdict === true ? {} : { refused: verdict }) });
      if (verdict === true) return answer;
    }
  };
  const prompts: Prompts = {
    input: async (o) => next(o.message, o.validate),
    password: async (o) => next(o.message, o.validate),
    confirm: async (o) => next(o.message) === "y",
  };
  return { prompts, asked };
}

/**
 * A wallet in a CLI home, where `wallet create` puts it, sealed with a cheap scrypt (N = 2^10, not
 * ethers' 2^17): a keystore says its own cost, so every command that unlocks it is fast, where each
 * unlock of a created wallet costs about a second of CPU. For tests whose subject is not the wallet;
 * `wallet create` itself is tested in cli.test.ts, first-hour.test.ts and trading-cli.test.ts.
 */
export async function seedWallet(home: string, name: string, password: string, wallet = new Wallet(hexlify(randomBytes(32)))): Promise<string> {
  const json = await encryptKeystoreJson({ address: wallet.address, privateKey: wallet.privateKey }, password, { scrypt: { N: 1 << 10 } });
  writePrivateFile(join(home, "wallets", `${name}.json`), json, { exclusive: true });
  return wallet.address;
}
/** A party whose wallet is in the CLI home `home` and signed in there, with a session of its own for the HTTP helpers. */
export async function cliParty(d: TestDaemon, home: string, password = "pw"): Promise<Party> {
  const wallet = randomWallet();
  await seedWallet(home, "me", password, wallet);
  const login = await runCli(["login"], { TRADEVAULT_HOME: home, TRADEVAULT_URL: d.url, TRADEVAULT_PASSWORD: password });
  if (login.code !== 0) throw new Error(`CLI login failed: ${login.stderr}`);
  return { wallet, address: wallet.address, token: (await signIn(d.http, wallet)).token };
}
