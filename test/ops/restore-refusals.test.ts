// A backup is restored only whole: a flipped byte, a missing file, a truncated or tampered manifest,
// a backup from a newer schema, or a target that already holds data are refused with a clear error,
// and nothing is written. Also: what the backup holds (snapshots the database names) and its modes.
import { sqliteMigrations as migrations } from "../../daemon/db/migrations/index.js";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import Database from "better-sqlite3";
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createBackup } from "../../daemon/backup/backup.js";
import { restoreBackup } from "../../daemon/backup/restore.js";
import { party, startTestDaemon } from "../helpers/daemon.js";
import { tempDir } from "../helpers/util.js";
import { tradevaultd } from "./_cli.js";

const t = suite<{ root: string; good: string; remove(): void }>("restore refusals");

t.before(async (ctx) => {
  const dir = tempDir("tradevault-refusals-");
  ctx.root = dir.path;
  ctx.remove = dir.remove;
  const d = await startTestDaemon({ dataDir: join(ctx.root, "data"), startOracle: false });
  await party(d, { usdc: 100 });
  await d.close();
  ctx.good = join(ctx.root, "good");
  await createBackup({ dataDir: join(ctx.root, "data"), dir: ctx.good });
});
t.after((ctx) => ctx.remove());

let n = 0;
/** A copy of the good backup, damaged by `harm`, and a fresh target path beside it. */
function damaged(ctx: { root: string; good: string }, harm: (dir: string) => void) {
  const dir = join(ctx.root, `case-${++n}`);
  cpSync(ctx.good, dir, { recursive: true });
  harm(dir);
  return { dir, target: join(ctx.root, `target-${n}`) };
}

async function refused(dir: string, target: string, message: RegExp) {
  const err = await restoreBackup({ dir, dataDir: target }).then(() => undefined, (e: Error) => e);
  assert.ok(err, "restore should have been refused");
  assert.match(err!.message, message);
  assert.not.ok(existsSync(target), "nothing written");
  assert.equal(readdirSync(join(target, "..")).filter((f) => f.includes(".restoring-")), [], "no staging folder left");
}

const manifestOf = (dir: string) => JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"));

t("an intact backup restores; backup and restored files are owner-only", async (ctx) => {
  const target = join(ctx.root, "intact");
  const { manifest } = await restoreBackup({ dir: ctx.good, dataDir: target });
  const paths = manifest.files.map((f) => f.path).sort();
  // The embedded chain's snapshots (taken at the source daemon's clean stop) that the database names.
  const snapshots = paths.filter((p) => p.startsWith("chain/snapshots/"));
  assert.ok(snapshots.length >= 1 && snapshots.every((p) => /^chain\/snapshots\/31337-.+\.json\.gz$/.test(p)), paths.join());
  assert.equal(paths.filter((p) => !p.startsWith("chain/snapshots/")), ["chain/31337.json", "keys/operator.key", "keys/secret.key", "sim-exchange.db", "tradevault-sim.db"]);
  assert.equal(manifest.databases.map((d) => [d.path, d.migration]), [["tradevault-sim.db", Object.keys(migrations).at(-1)], ["sim-exchange.db", null]]);
  for (const root of [ctx.good, target]) {
    for (const f of manifest.files) assert.is(statSync(join(root, f.path)).mode & 0o777, 0o600, `${root}/${f.path}`);
    for (const sub of ["", "keys", "chain"]) assert.is(statSync(join(root, sub)).mode & 0o777, 0o700, `${root}/${sub}`);
  }
  assert.equal(readFileSync(join(target, "keys/operator.key")), readFileSync(join(ctx.root, "data/keys/operator.key")));
});

t("a flipped byte in a database is refused", async (ctx) => {
  const { dir, target } = damaged(ctx, (d) => {
    const path = join(d, "tradevault-sim.db");
    const bytes = readFileSync(path);
    bytes[bytes.length >> 1]! ^= 0x01;
    writeFileSync(path, bytes);
  });
  await refused(dir, target, /tradevault-sim\.db is damaged \(its SHA-256 does not match the manifest\)/);
});

t("a missing or shortened file is refused", async (ctx) => {
  const gone = damaged(ctx, (d) => rmSync(join(d, "keys/secret.key")));
  await refused(gone.dir, gone.target, /keys\/secret\.key is missing/);
  const short = damaged(ctx, (d) => truncateSync(join(d, "sim-exchange.db"), 4096));
  await refused(short.dir, short.target, /sim-exchange\.db is damaged \(4096 bytes, the manifest says \d+\)/);
});

t("a truncated, missing or tampered manifest is refused", async (ctx) => {
  const cut = damaged(ctx, (d) => truncateSync(join(d, "manifest.json"), 200));
  await refused(cut.dir, cut.target, /manifest\.json is damaged \(not valid JSON; truncated\?\)/);
  const none = damaged(ctx, (d) => rmSync(join(d, "manifest.json")));
  await refused(none.dir, none.target, /manifest\.json is missing \(the backup did not finish/);
  const escape = damaged(ctx, (d) => {
    const m = manifestOf(d);
    m.files[0].path = "../outside.db";
    writeFileSync(join(d, "manifest.json"), JSON.stringify(m));
  });
  await refused(escape.dir, escape.target, /manifest\.json is damaged: files\.0\.path must be a plain relative path/);
  const newer = damaged(ctx, (d) => {
    const m = manifestOf(d);
    m.databases[0].migration = "2099-01-01-001-future";
    writeFileSync(join(d, "manifest.json"), JSON.stringify(m));
  });
  await refused(newer.dir, newer.target, /migrated by a newer tradevault/);
});

/** Drops `path` from the backup folder and from every list in its manifest, as a careless copy would. */
function dropEverywhere(dir: string, path: string) {
  rmSync(join(dir, path));
  const m = manifestOf(dir);
  m.files = m.files.filter((f: { path: string }) => f.path !== path);
  m.databases = m.databases.filter((d: { path: string }) => d.path !== path);
  writeFileSync(join(dir, "manifest.json"), JSON.stringify(m));
}

t("the manifest records the kind of data directory: the sim's network, the embedded chain, both keys", (ctx) => {
  const m = manifestOf(ctx.good);
  assert.is(m.formatVersion, 2);
  assert.equal(m.holds, { networks: ["sim"], chains: ["31337"], operatorKey: true, secretKey: true });
});

t("a file dropped from both the folder and the manifest is refused, naming it and what it is", async (ctx) => {
  const cases: Array<[string, RegExp]> = [
    ["keys/operator.key", /keys\/operator\.key is missing: a complete backup of this data directory holds it \(the operator key\)/],
    ["keys/secret.key", /keys\/secret\.key is missing: .*\(the key that seals the agent keys\)/],
    ["sim-exchange.db", /sim-exchange\.db is missing: .*\(the embedded sim's exchange/],
    ["chain/31337.json", /chain\/31337\.json is missing: .*\(the embedded chain's deployment record\)/],
    ["tradevault-sim.db", /tradevault-sim\.db is missing: .*\(the daemon's database for sim\)/],
  ];
  for (const [path, message] of cases) {
    const { dir, target } = damaged(ctx, (d) => dropEverywhere(d, path));
    await refused(dir, target, message);
  }
});

t("the sim's daemon database requires the sim's database even with no record of the kind (format 1)", async (ctx) => {
  const { dir, target } = damaged(ctx, (d) => {
    dropEverywhere(d, "sim-exchange.db");
    const m = manifestOf(d);
    m.formatVersion = 1;
    delete m.holds;
    writeFileSync(join(d, "manifest.json"), JSON.stringify(m));
  });
  await refused(dir, target, /sim-exchange\.db is missing: a complete backup of this data directory holds it/);
  const older = damaged(ctx, (d) => {
    const m = manifestOf(d);
    m.formatVersion = 1;
    delete m.holds;
    writeFileSync(join(d, "manifest.json"), JSON.stringify(m));
  });
  await restoreBackup({ dir: older.dir, dataDir: older.target }); // a whole format-1 backup still restores
  const unrecorded = damaged(ctx, (d) => {
    const m = manifestOf(d);
    delete m.holds;
    writeFileSync(join(d, "manifest.json"), JSON.stringify(m));
  });
  await refused(unrecorded.dir, unrecorded.target, /manifest\.json is damaged: holds is missing/);
});

t("a symbolic link or a folder where a file is expected is refused, even with the right bytes behind it", async (ctx) => {
  const elsewhere = join(ctx.root, "elsewhere");
  mkdirSync(elsewhere, { recursive: true });
  const linkedKey = damaged(ctx, (d) => {
    renameSync(join(d, "keys/operator.key"), join(elsewhere, "operator.key"));
    symlinkSync(join(elsewhere, "operator.key"), join(d, "keys/operator.key"));
  });
  await refused(linkedKey.dir, linkedKey.target, /keys\/operator\.key is a symbolic link, not a file/);
  const linkedFolder = damaged(ctx, (d) => {
    renameSync(join(d, "keys"), join(elsewhere, "keys"));
    symlinkSync(join(elsewhere, "keys"), join(d, "keys"));
  });
  await refused(linkedFolder.dir, linkedFolder.target, /keys is a symbolic link, not a folder/);
  const folder = damaged(ctx, (d) => {
    rmSync(join(d, "chain/31337.json"));
    mkdirSync(join(d, "chain/31337.json"));
  });
  await refused(folder.dir, folder.target, /chain\/31337\.json is a folder, not a file/);
  const linkedManifest = damaged(ctx, (d) => {
    renameSync(join(d, "manifest.json"), join(elsewhere, "manifest.json"));
    symlinkSync(join(elsewhere, "manifest.json"), join(d, "manifest.json"));
  });
  await refused(linkedManifest.dir, linkedManifest.target, /manifest\.json is a symbolic link, not a file/);
});

t("an external-chain data directory without the sim or the operator key backs up and restores; its record is required", async (ctx) => {
  // The kind a daemon on testnet with --rpc-url and --operator-key-file leaves: no sim, no operator key.
  const data = join(ctx.root, "external");
  cpSync(join(ctx.root, "data"), data, { recursive: true });
  renameSync(join(data, "tradevault-sim.db"), join(data, "tradevault-testnet.db"));
  rmSync(join(data, "sim-exchange.db"));
  rmSync(join(data, "keys/operator.key"));
  renameSync(join(data, "chain/31337.json"), join(data, "chain/external-8453.json"));
  const out = join(ctx.root, "external-backup");
  const { manifest } = await createBackup({ dataDir: data, dir: out });
  assert.equal(manifest.holds, { networks: ["testnet"], chains: ["external-8453"], operatorKey: false, secretKey: true });
  const restored = await restoreBackup({ dir: out, dataDir: join(ctx.root, "external-restored") });
  assert.equal(restored.manifest.files.filter((f) => f.kind !== "snapshot").map((f) => f.path).sort(),
    ["chain/external-8453.json", "keys/secret.key", "tradevault-testnet.db"]);
  const gone = join(ctx.root, "external-gone");
  cpSync(out, gone, { recursive: true });
  dropEverywhere(gone, "chain/external-8453.json");
  await refused(gone, join(ctx.root, "external-gone-target"), /chain\/external-8453\.json is missing: .*\(the deployment record of chain 8453\)/);
});

t("backup refuses a data directory whose key is a symbolic link: the backup would leave it out", async (ctx) => {
  const data = join(ctx.root, "linked-key");
  cpSync(join(ctx.root, "data"), data, { recursive: true });
  renameSync(join(data, "keys/operator.key"), join(ctx.root, "linked-operator.key"));
  symlinkSync(join(ctx.root, "linked-operator.key"), join(data, "keys/operator.key"));
  const out = join(ctx.root, "linked-key-backup");
  const err = await createBackup({ dataDir: data, dir: out }).then(() => undefined, (e: Error) => e);
  assert.match(String(err), /cannot back up .*: keys\/operator\.key is a symbolic link, not a file, and a backup of it must hold the operator key/);
  assert.not.ok(existsSync(join(out, "manifest.json")), "no backup left looking whole");
});

t("restore refuses a target that holds anything; backup refuses a non-empty folder", async (ctx) => {
  const target = join(ctx.root, "busy");
  mkdirSync(target);
  writeFileSync(join(target, "keep.txt"), "mine");
  const err = await restoreBackup({ dir: ctx.good, dataDir: target }).catch((e: Error) => e);
  assert.match(String(err), /is not empty: restore only into a new or empty folder/);
  assert.equal(readdirSync(target), ["keep.txt"]);
  const again = await createBackup({ dataDir: join(ctx.root, "data"), dir: ctx.good }).catch((e: Error) => e);
  assert.match(String(again), /is not empty: back up into a new or empty folder/);
});

t("the command line: a damaged backup is exit 1 with one line saying why", async (ctx) => {
  const { dir, target } = damaged(ctx, (d) => {
    const path = join(d, "chain/31337.json");
    // One hex digit changed (to another digit: a factory starting 0xf would otherwise stay as it was).
    writeFileSync(path, readFileSync(path, "utf8").replace(/"factory": "0x(.)/, (_m, c: string) => `"factory": "0x${c.toLowerCase() === "f" ? "0" : "f"}`));
  });
  const run = await tradevaultd(["restore", dir, "--data-dir", target]);
  assert.is(run.code, 1);
  assert.match(run.stderr, /^tradevaultd restore: .* is not a usable backup: chain\/31337\.json is damaged/);
  assert.is(run.stderr.trim().split("\n").length, 1);
  assert.not.ok(existsSync(target));
  assert.is((await tradevaultd(["restore", dir])).code, 2, "--data-dir is required");
});

t("the command line: the daemon's --data-dir before the command names what backup copies", async (ctx) => {
  const out = join(ctx.root, "cli-backup");
  const run = await tradevaultd(["--data-dir", join(ctx.root, "data"), "backup", out], { TRADEVAULT_DATA_DIR: join(ctx.root, "nowhere") });
  assert.is(run.code, 0, run.stderr);
  assert.is(manifestOf(out).source.dataDir, join(ctx.root, "data"));
});

t("chain snapshots the database names are backed up and restored; others are not", async (ctx) => {
  // What the Anvil chain keeps: files in chain/snapshots/ and a row naming each in chain_snapshots.
  const data = join(ctx.root, "with-snapshots");
  cpSync(join(ctx.root, "data"), data, { recursive: true });
  const db = new Database(join(data, "tradevault-sim.db"));
  db.exec("delete from chain_snapshots");
  const row = "('31337', ?, 1, 1, 1, 10, 'x', '1.7.1', 0)";
  db.prepare(`insert into chain_snapshots (chain, file, operator_nonce, journal_id, height, bytes, sha256, anvil_version, created_at) values ${row}, ${row}`)
    .run("snap-1.gz", "snap-2.gz");
  db.close();
  mkdirSync(join(data, "chain/snapshots"), { recursive: true });
  for (const f of readdirSync(join(data, "chain/snapshots"))) rmSync(join(data, "chain/snapshots", f));
  for (const f of ["snap-1.gz", "snap-2.gz", "snap-0.gz.tmp"]) writeFileSync(join(data, "chain/snapshots", f), `state ${f}`);
  const out = join(ctx.root, "snap-backup");
  const { manifest } = await createBackup({ dataDir: data, dir: out });
  assert.equal(manifest.files.filter((f) => f.kind === "snapshot").map((f) => f.path).sort(), ["chain/snapshots/snap-1.gz", "chain/snapshots/snap-2.gz"]);
  const target = join(ctx.root, "snap-restored");
  await restoreBackup({ dir: out, dataDir: target });
  assert.equal(readdirSync(join(target, "chain/snapshots")).sort(), ["snap-1.gz", "snap-2.gz"]);
  assert.is(readFileSync(join(target, "chain/snapshots/snap-2.gz"), "utf8"), "state snap-2.gz");
});

t.run();
