// login: complete sign-ins per second (POST /api/auth/challenge, personal_sign by the wallet in this
// process, POST /api/auth/login: nonce lookup, signature recovery, nonce consumed and session written
// in one commit) with `concurrency` wallets signing in at once, against the signature check alone
// (ethers' verifyMessage, the call the daemon makes) in a loop on one core.
import { hexlify, randomBytes, verifyMessage, Wallet } from "ethers";
import { httpClient, type Client } from "./lib/load.js";
import { fmt, mib, type BenchResult } from "./lib/report.js";
import { profiled } from "./lib/profile.js";
import { median } from "./lib/stats.js";
import { startWorker, type ProcessUsage } from "./lib/worker-client.js";

export interface LoginSize {
  concurrency: number;
  durationS: number;
  runs: number;
  warmupS: number;
  /** Sign-ins (untimed) while counting commits. */
  commitProbe: number;
}

export const LOGIN_FULL: LoginSize = { concurrency: 8, durationS: 4, runs: 3, warmupS: 1, commitProbe: 50 };

const wallet = () => new Wallet(hexlify(randomBytes(32)));

async function signInOnce(client: Client, w: Wallet): Promise<void> {
  const c = await client.send("POST", "/api/auth/challenge", { address: w.address });
  if (c.status !== 200) throw new Error(`challenge: ${c.status} ${JSON.stringify(c.body)}`);
  const signature = await w.signMessage(c.body.data.message);
  const l = await client.send("POST", "/api/auth/login", { address: w.address, signature, nonce: c.body.data.nonce });
  if (l.status !== 200) throw new Error(`login: ${l.status} ${JSON.stringify(l.body)}`);
}

/** Sign-ins per second over `durationS`, `clients.length` at a time (each its own connection). */
async function signInRate(clients: Client[], durationS: number): Promise<number> {
  return (await signIns(clients, durationS)).rate;
}

async function signIns(clients: Client[], durationS: number): Promise<{ rate: number; done: number }> {
  const end = Date.now() + durationS * 1000;
  const t0 = process.hrtime.bigint();
  let done = 0;
  await Promise.all(clients.map(async (client) => {
    const w = wallet();
    while (Date.now() < end) {
      await signInOnce(client, w);
      done += 1;
    }
  }));
  return { rate: done / (Number(process.hrtime.bigint() - t0) / 1e9), done };
}

/** verifyMessage calls per second over `durationS`, on pre-signed challenges. */
async function verifyRate(durationS: number): Promise<number> {
  const w = wallet();
  const samples = await Promise.all(Array.from({ length: 16 }, async (_, i) => {
    const message = `tradevault wants you to sign in with your Ethereum account:\n${w.address}\n\nNonce: ${i}${hexlify(randomBytes(8))}`;
    return { message, signature: await w.signMessage(message) };
  }));
  const end = Date.now() + durationS * 1000;
  const t0 = process.hrtime.bigint();
  let n = 0;
  while (Date.now() < end) {
    const s = samples[n % samples.length]!;
    if (verifyMessage(s.message, s.signature) !== w.address) throw new Error("verifyMessage disagrees");
    n += 1;
  }
  return n / (Number(process.hrtime.bigint() - t0) / 1e9);
}

export async function login(size: LoginSize = LOGIN_FULL): Promise<BenchResult> {
  const started = Date.now();
  const worker = await startWorker(new URL("./servers/sign-in.ts", import.meta.url).pathname);
  const rates: number[] = [];
  const verifies: number[] = [];
  const cpu: number[] = [];
  let commits: Record<string, number> = {};
  let loadCommits: Record<string, number> = {};
  let loadDone = 0;
  let usage: ProcessUsage;
  try {
    const { url } = await worker.call<{ url: string }>("start");
    const clients = Array.from({ length: size.concurrency }, () => httpClient(url));
    await signInRate(clients, size.warmupS);
    await verifyRate(size.warmupS);
    for (let i = 0; i < size.runs; i++) {
      const before = await worker.usage();
      const t0 = Date.now();
      const run = () => signInRate(clients, size.durationS);
      rates.push(await (i === 0 ? profiled(worker, "login-daemon", run) : run()));
      cpu.push(((await worker.usage()).cpuMs - before.cpuMs) / (Date.now() - t0));
      verifies.push(await verifyRate(size.durationS));
    }
    await worker.call("countCommits");
    for (let i = 0; i < size.commitProbe; i++) await signInOnce(clients[0]!, wallet());
    commits = await worker.call<Record<string, number>>("commits");
    await worker.call("countCommits");
    loadDone = (await signIns(clients, 1)).done;
    loadCommits = await worker.call<Record<string, number>>("commits");
    for (const c of clients) c.close();
  } finally {
    usage = await worker.stop();
  }
  const rate = median(rates);
  const verify = median(verifies);
  const per = (counts: Record<string, number>, n: number) =>
    Object.entries(counts).map(([file, c]) => `${fmt(c / n)} in ${file}`).join(", ") || "none counted";
  return {
    name: "login",
    setup: `challenge + personal_sign + login, ${size.concurrency} wallets at once, ${size.runs} x ${size.durationS} s`,
    figures: [
      { label: "sign-ins/s", value: rate, unit: "/s", baseline: verify, target: ">= 0.5x baseline", met: rate >= 0.5 * verify },
    ],
    peakRssMb: mib(usage.maxRssKb),
    notes: [
      `Baseline: ethers verifyMessage (secp256k1 recovery, what login calls) in a loop in the benchmark process.`,
      `Daemon CPU while signing in: ${Math.round(median(cpu) * 100)}% of one core; the wallets sign in the benchmark process, on the other core.`,
      `SQLite commits per sign-in (each one fsync unless marked), one at a time: ${per(commits, size.commitProbe)}; ` +
        `${size.concurrency} at once (1 s, ${loadDone} sign-ins): ${per(loadCommits, loadDone)}. Sign-ins that arrive together share the session commit (store.grouped).`,
    ],
    seconds: (Date.now() - started) / 1000,
  };
}
