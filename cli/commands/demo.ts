// tradevault demo: the whole life of a vault on a fresh daemon of its own (temporary data directory,
// free ports, fast oracle), narrated step by step, through the same HTTP API as every command.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Command } from "commander";
import { Wallet, type HDNodeWallet } from "ethers";
// A plain module with no imports but lib/figures.ts: the one describer of an event.
import { narrator } from "../../daemon/events/describe-event.js";
import { createApiClient, type ApiClient } from "../api-client.js";
import { CliError } from "../errors.js";
import type { Io } from "../output.js";
import type {
  AgentStatus, Challenge, FundPrepare, FundResult, Login, ProposalAction, ProposalResponse, TradeResult, TypedData,
  VaultClose, VaultDetailResponse, VaultEvents, VaultUnpause, Withdrawal,
} from "../../daemon/http/responses.js";

/** What the demo reads of /healthz: where the sim exchange and the chain are. */
interface Health {
  exchange: { kind: string; url: string };
  chain?: { chainId?: number };
}

export interface DemoSummary {
  url: string;
  vault?: string;
  close?: VaultClose["vault"];
  withdrawals?: { trader: string; investor: string };
  events?: string[];
}

function daemonBin(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++, dir = dirname(dir)) if (existsSync(join(dir, "bin", "tradevaultd"))) return join(dir, "bin", "tradevaultd");
  throw new CliError("INTERNAL", "cannot find bin/tradevaultd next to the CLI");
}

/** Starts tradevaultd and resolves with its URL from the first log line that names it. */
function startDaemon(dataDir: string, oracleSeconds: number): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [daemonBin(), "--port", "0", "--data-dir", dataDir, "--sim-feed", "static", "--oracle-interval", String(oracleSeconds), "--log-level", "info"], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, FORCE_COLOR: "0" },
  });
  return new Promise((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => {
      child.kill(); // or its open pipes keep the CLI alive
      reject(new CliError("INTERNAL", "the demo daemon did not start", 1, "its log is in the details (--json or --debug)", { log: out.slice(-2000) }));
    }, 90_000);
    child.stdout!.on("data", (d) => {
      out += d;
      const m = /"url":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ url: m[1]!, child });
      }
    });
    child.stderr!.on("data", (d) => (out += d));
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new CliError("INTERNAL", `the demo daemon exited (${code})`, 1, "its log is in the details (--json or --debug)", { log: out.slice(-2000) }));
    });
  });
}

async function signIn(url: string, wallet: HDNodeWallet): Promise<ApiClient> {
  const api = createApiClient(url);
  const c = await api.request<Challenge>("POST", "/api/auth/challenge", { address: wallet.address });
  const login = await api.request<Login>("POST", "/api/auth/login", { address: wallet.address, signature: await wallet.signMessage(c.message), nonce: c.nonce });
  return createApiClient(url, login.user.sessionToken);
}

const signTyped = (wallet: HDNodeWallet, td: TypedData) => {
  const { EIP712Domain: _d, ...types } = td.types;
  return wallet.signTypedData(td.domain, types, td.message);
};

async function until<T>(what: string, fn: () => Promise<T | undefined | false>, timeoutMs = 60_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn().catch(() => undefined);
    if (v) return v;
    if (Date.now() > end) throw new CliError("DEMO_FAILED", `timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

export async function runDemo(say: (line: string) => void): Promise<DemoSummary> {
  const dataDir = mkdtempSync(join(tmpdir(), "tradevault-demo-"));
  say(`Starting a fresh tradevaultd (data in ${dataDir}, oracle every 2 s)...`);
  const { url, child } = await startDaemon(dataDir, 2).catch((err: unknown) => {
    rmSync(dataDir, { recursive: true, force: true });
    throw err;
  });
  const summary: DemoSummary = { url };
  try {
    const health = await createApiClient(url).request<Health>("GET", "/healthz");
    const sim = health.exchange.url;
    const investorWallet = Wallet.createRandom();
    const traderWallet = Wallet.createRandom();
    say(`Daemon at ${url}; sim exchange at ${sim}; chain ${health.chain?.chainId ?? "?"}.`);
    say(`Two wallets: investor Ivy ${investorWallet.address}, trader Tom ${traderWallet.address}. Both sign in with EIP-4361.`);
    const ivy = await signIn(url, investorWallet);
    const tom = await signIn(url, traderWallet);

    const faucet = (user: string, amount: string) =>
      fetch(`${sim}/sim/faucet`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ user, amount }) }).then((r) => r.json());
    await faucet(investorWallet.address, "10000");
    say("Faucet: Ivy gets 10000 test USDC on the sim exchange (and 10000 tUSDC on the chain, for the escrow).");

    const agent = await ivy.request<AgentStatus>("GET", "/api/agent");
    const approval = agent.approval;
    if (!approval) throw new CliError("DEMO_FAILED", "the fresh agent is already approved");
    await ivy.request("POST", "/api/agent/approve", { nonce: approval.nonce, signature: await signTyped(investorWallet, approval.typedData) });
    say(`Ivy's wallet approves the daemon's agent ${agent.agentAddress}: it may trade her account, never withdraw.`);

    const deadline = Math.floor(Date.now() / 1000) + 30 * 86_400;
    const { proposal } = await tom.request<ProposalResponse>("POST", "/api/proposals", {
      investor: investorWallet.address, trader: traderWallet.address, initialBalance: "10000",
      maxDrawdown: 10, dailyDrawdown: 5, dealDeadline: deadline, profitShare: { trader: 20, investor: 80 },
    });
    say(`Tom proposes: 10000 USDC, max drawdown 10%, daily 5%, 30 days, 20% of the profit to him (proposal ${proposal.id}).`);
    await tom.request("POST", `/api/proposals/${proposal.id}/accept`, { signature: await signTyped(traderWallet, proposal.typedData) });
    const accepted = await ivy.request<ProposalAction>("POST", `/api/proposals/${proposal.id}/accept`, { signature: await signTyped(investorWallet, proposal.typedData) });
    const vault = accepted.proposal.vaultAddress;
    if (!vault) throw new CliError("DEMO_FAILED", `the vault was not deployed: ${accepted.proposal.relayError}`);
    summary.vault = vault;
    say(`Both sign the EIP-712 terms; the daemon relays createVault: vault ${vault}.`);

    await until("the first oracle reading", async () => (await tom.request<VaultDetailResponse>("GET", `/api/vaults/${vault}`)).vault.lastBalanceUpdate);
    const buy = await tom.request<TradeResult>("POST", "/api/trade", { symbol: "BTC", side: "buy", size: 0.1, vaultAddress: vault });
    say(`Tom buys 0.1 BTC at market for the vault (order ${buy.orderId}).`);

    await fetch(`${sim}/sim/price`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ symbol: "BTC", price: "53000" }) });
    say("Price shock: BTC falls to 53000. The vault is down about 7% today, past its 5% daily limit...");
    const paused = await until("the automatic pause", async () => {
      const v = (await tom.request<VaultDetailResponse>("GET", `/api/vaults/${vault}`)).vault;
      return v.paused ? v : undefined;
    });
    say(`The oracle wrote the balance (${paused.currentBalance}); the contract paused the vault (${paused.pauseReason}, daily drawdown ${paused.currentDailyDrawdown}%).`);
    try {
      await tom.request("POST", "/api/trade", { symbol: "BTC", side: "buy", size: 0.01, vaultAddress: vault });
    } catch (err) {
      say(`Tom's next trade is refused: ${(err as CliError).code}.`);
    }
    try {
      await tom.request("POST", `/api/vaults/${vault}/unpause`);
    } catch (err) {
      say(`Unpausing before recovery is refused too: ${(err as CliError).code}.`);
    }

    await fetch(`${sim}/sim/price`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ symbol: "BTC", price: "66000" }) });
    say("BTC recovers to 66000.");
    const unpaused = await tom.request<VaultUnpause>("POST", `/api/vaults/${vault}/unpause`);
    say(`Tom unpauses: the daemon writes a fresh balance, the contract checks the limits: paused = ${unpaused.vault.paused}.`);

    const closed = (await ivy.request<VaultClose>("POST", `/api/vaults/${vault}/close`)).vault;
    summary.close = closed;
    say(`Ivy closes the vault: positions flattened, final balance ${closed.finalBalance}, profit ${closed.profit}, Tom's share ${closed.traderShare}, Ivy's ${closed.investorShare}.`);

    const prep = await ivy.request<FundPrepare>("POST", `/api/vaults/${vault}/fund/prepare`, { amount: "500" });
    const funded = await ivy.request<FundResult>("POST", `/api/vaults/${vault}/fund`, { amount: "500", deadline: prep.deadline, signature: await signTyped(investorWallet, prep.typedData) });
    say(`Ivy funds the settlement escrow with 500 tUSDC by signing a permit (no gas): tx ${funded.txHash}.`);
    const tw = await tom.request<Withdrawal>("POST", `/api/vaults/${vault}/withdraw`);
    say(`Tom withdraws his share: ${tw.amount} to ${tw.recipient}.`);
    const iw = await ivy.request<Withdrawal>("POST", `/api/vaults/${vault}/withdraw`);
    say(`Ivy withdraws the rest of the escrow: ${iw.amount} to ${iw.recipient}.`);
    summary.withdrawals = { trader: tw.amount, investor: iw.amount };

    const events = await ivy.request<VaultEvents>("GET", `/api/vaults/${vault}/events?limit=100`);
    const oldestFirst = [...events.events].reverse();
    summary.events = oldestFirst.map((e) => e.type);
    const tell = narrator();
    say(`The vault's audit trail, as \`tradevault vaults events\` tells it:\n${oldestFirst.map((e) => `  ${tell(e).sentence}`).join("\n")}`);
    return summary;
  } finally {
    child.kill("SIGTERM");
    await new Promise((r) => child.once("exit", r));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export function demoCommand(io: Io): Command {
  return new Command("demo")
    .description("play the whole life of a vault on a fresh embedded daemon, narrating each step")
    .action(async (_o, c: Command) => {
      const json = Boolean(c.optsWithGlobals().json);
      const summary = await runDemo((line) => (json ? io.stderr : io.stdout).write(`${line}\n`));
      if (json) io.stdout.write(`${JSON.stringify({ ok: true, data: summary }, null, 2)}\n`);
      else io.stdout.write("Demo finished.\n");
    });
}
