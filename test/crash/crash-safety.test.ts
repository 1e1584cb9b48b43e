// Crash safety of the embedded chain: a process writing as the oracle does (and closing vaults) is
// SIGKILLed at random points, restarted on the same data directory, and in the end the chain's
// contract state and the database agree, and every write acknowledged before a kill is still there;
// its Anvil child never outlives it. Then the same with Anvil alone killed under a running chain.
import { test } from "uvu";
import pino from "pino";
import * as assert from "uvu/assert";
import { spawn } from "node:child_process";
import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { dirname, extname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { IndexedChain as Chain } from "../chain/_support.js";
import { readVaultState, updateBalances } from "../../daemon/chain/contracts.js";
import { loadOrCreateOperatorKey } from "../../daemon/chain/operator-key.js";
import { openStore } from "../../daemon/db/database.js";
import { USDC, chainNow, ensureArtifacts, recorded, start } from "../chain/_support.js";
import type { Env } from "../chain/_support.js";
import { testSeed } from "../helpers/seed.js";
import { tempDir, waitUntil } from "../helpers/util.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
/**
 * The writer, started the way this file runs: as JavaScript beside it in the test runner's transpiled
 * copy (a plain Node start), or through tsx from the sources; each restart then costs what a
 * daemon's restart does, not tsx's loader (about 1.3 s of CPU) on top.
 */
const writerArgs = (() => {
  const here = fileURLToPath(import.meta.url);
  const writer = join(dirname(here), `_chain-writer${extname(here)}`);
  return here.endsWith(".js") ? ["--enable-source-maps", writer] : ["--import", "tsx", writer];
})();
const tmp = tempDir("tradevault-crash-");
/** How many writes each random round lets through before the kill; a failure names the seed. */
const seeded = testSeed("crash-safety");
let env: Env;
let chain: Chain | undefined;

interface Acks {
  updates: Array<{ t: number; vaults: string[] }>;
  closed: Set<string>;
}
const acks: Acks = { updates: [], closed: new Set() };

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

test.before(async () => {
  await ensureArtifacts();
});

test.after(async () => {
  await chain?.stop();
  await env?.store.close();
  tmp.remove();
});

/** Runs the writer until it has acknowledged `writes` more writes, then SIGKILLs it; returns its Anvil pid. */
async function runAndKill(writes: number): Promise<number> {
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [...writerArgs, tmp.path], { cwd: root });
  let out = "";
  let err = "";
  let anvil = 0;
  let seen = 0;
  child.stderr.on("data", (d) => (err += d));
  child.stdout.on("data", (d: Buffer) => {
    out += d.toString();
    const lines = out.split("\n");
    out = lines.pop()!;
    for (const line of lines) {
      const [kind, a, b] = line.split(" ");
      if (kind === "anvil") anvil = Number(a);
      if (kind !== "ack") continue;
      seen++;
      if (a === "update") acks.updates.push({ t: Number(b), vaults: line.split(" ")[3]!.split(",") });
      if (a === "close") acks.closed.add(b!);
    }
  });
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  await waitUntil(() => seen >= writes || child.exitCode !== null, { slowMs: 120_000, what: `${writes} acknowledged writes` });
  assert.is(child.exitCode, null, `the writer died on its own: ${err.slice(-2000)}`);
  child.kill("SIGKILL");
  await exited;
  return anvil;
}

test("SIGKILLed at random points while writing and closing: restarts agree with what was acknowledged", seeded.replayable(async () => {
  for (let round = 0; round < 5; round++) {
    // Round 1 runs long enough for the writer's fifth cycle, which closes a vault (each writer process
    // counts its cycles from 1); the other rounds stop at random points.
    const anvil = await runAndKill(round === 0 ? 6 : round === 1 ? 12 : seeded.int(2, 11));
    assert.ok(anvil > 0);
    await waitUntil(() => !alive(anvil), { slowMs: 15_000, what: `Anvil ${anvil} to end with its daemon` });
  }
  assert.ok(acks.closed.size >= 1, "a vault closed during the run");
  env = {
    dir: tmp.path, store: await openStore(join(tmp.path, "db.sqlite")),
    operatorKey: loadOrCreateOperatorKey(join(tmp.path, "keys", "operator.key")).privateKey,
  } as Env;
  chain = await start(env, { shutdownSettleMs: 50, log: pino({ level: process.env.TEST_LOG ?? "silent" }) });
  await chain.indexer.sync();
  await assertAgreement(chain, env);
}));

async function assertAgreement(c: Chain, e: Env): Promise<void> {
  const rows = await e.store.db.selectFrom("vaults").selectAll().execute();
  assert.ok(rows.length >= 4);
  for (const row of rows) {
    const s = await readVaultState(c.provider, { vault: row.address });
    assert.is(row.current_balance, s.balance.toString(), `balance of ${row.address}: database and chain`);
    assert.is(row.last_observed_at ?? 0, s.observedAt, `observedAt of ${row.address}`);
    assert.is(row.closed === 1, s.closed, `closed of ${row.address}`);
    if (acks.closed.has(row.address)) assert.ok(s.closed, `acknowledged close of ${row.address} kept`);
    const acked = Math.max(0, ...acks.updates.filter((u) => u.vaults.includes(row.address)).map((u) => u.t));
    assert.ok(s.observedAt >= acked, `acknowledged reading of ${row.address} at ${acked} kept (chain has ${s.observedAt})`);
  }
}

test("Anvil killed alone: the chain comes back from snapshot and journal, and writes go on", async () => {
  const c = chain!;
  const open = (await env.store.db.selectFrom("vaults").select("address").where("closed", "=", 0).execute()).map((v) => v.address);
  const write = async (n: number) => {
    const t = await chainNow(c);
    await recorded(c, await updateBalances(c.signer, { factory: c.addresses.factory, readings: open.map((vault) => ({ vault, balance: 9_000n * USDC + BigInt(n), observedAt: t })) }));
    acks.updates.push({ t, vaults: open });
  };
  await write(1);
  await c.embedded!.snapshot();
  await write(2); // after the snapshot: only the journal has it
  const pid = c.embedded!.pid();
  process.kill(pid, "SIGKILL");
  await waitUntil(() => c.embedded!.pid() !== pid, { slowMs: 60_000, what: "a new Anvil" });
  await write(3); // through the gate, to the new node
  await assertAgreement(c, env);
});

test.run();
