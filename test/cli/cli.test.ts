// The CLI against a real daemon: wallets, login, whoami, account, logout, and its exit codes.
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { execFile } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { runCli } from "../helpers/cli.js";
import { packageRoot } from "../../daemon/lib/package-root.js";
import { startTestDaemon, type TestDaemon } from "../helpers/daemon.js";
import { freePort, tempDir } from "../helpers/util.js";
import { sql } from "kysely";
import { BUSY_MACHINE } from "../helpers/busy-machine.js";

const KEY = "0x0123456789012345678901234567890123456789012345678901234567890123";
const KEY_ADDRESS = "0x14791697260E4c9A71f18484C9f997B308e59325";

const t = suite<{ d: TestDaemon; home: ReturnType<typeof tempDir> }>("cli");
t.before(async (ctx) => {
  ctx.d = await startTestDaemon({ config: BUSY_MACHINE });
  ctx.home = tempDir("tradevault-cli-");
});
t.after(async (ctx) => {
  await ctx.d.close();
  ctx.home.remove();
});

const cli = (ctx: { d: TestDaemon; home: { path: string } }, args: string[], env: Record<string, string> = {}) =>
  runCli(args, { TRADEVAULT_HOME: ctx.home.path, TRADEVAULT_URL: ctx.d.url, TRADEVAULT_PASSWORD: "correct horse", ...env });

t("wallet create writes a 0600 keystore; a second wallet of that name is refused", async (ctx) => {
  const r = await cli(ctx, ["wallet", "create", "alice", "--json"]);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.json.data.address, /^0x[0-9a-fA-F]{40}$/);
  const path = join(ctx.home.path, "wallets", "alice.json");
  assert.is(statSync(path).mode & 0o777, 0o600);
  const again = await cli(ctx, ["wallet", "create", "alice"]);
  assert.is(again.code, 1);
  assert.match(again.stderr, /already exists/);
  assert.is(again.stderr.trim().split("\n").length, 1, "one line on stderr");
});

t("without a password and off a terminal, wallet create is a usage error (exit 2)", async (ctx) => {
  const r = await cli(ctx, ["wallet", "create", "nopass"], { TRADEVAULT_PASSWORD: "" });
  assert.is(r.code, 2);
  assert.match(r.stderr, /TRADEVAULT_PASSWORD/);
  assert.not.ok(existsSync(join(ctx.home.path, "wallets", "nopass.json")));
});

t("wallet import, list and address", async (ctx) => {
  const r = await cli(ctx, ["wallet", "import", "bob", "--json"], { TRADEVAULT_PRIVATE_KEY: KEY });
  assert.is(r.code, 0, r.stderr);
  assert.is(r.json.data.address, KEY_ADDRESS);
  const bad = await cli(ctx, ["wallet", "import", "carol"], { TRADEVAULT_PRIVATE_KEY: "0x1234" });
  assert.is(bad.code, 2);
  const list = await cli(ctx, ["wallet", "list", "--json"]);
  assert.equal(list.json.data.wallets.map((w: { name: string }) => w.name), ["alice", "bob"]);
  const human = await cli(ctx, ["wallet", "list"]);
  assert.match(human.stdout, /NAME\s+ADDRESS/);
  assert.match(human.stdout, new RegExp(`bob\\s+${KEY_ADDRESS}`));
  assert.is((await cli(ctx, ["wallet", "address", "bob"])).stdout.trim(), KEY_ADDRESS);
});

t("login, whoami, account and logout against the daemon", async (ctx) => {
  assert.is((await cli(ctx, ["whoami"])).code, 4, "not signed in yet");
  const login = await cli(ctx, ["login", "--wallet", "bob", "--json"]);
  assert.is(login.code, 0, login.stderr);
  assert.is(login.json.data.address, KEY_ADDRESS);
  assert.is(statSync(join(ctx.home.path, "sessions.json")).mode & 0o777, 0o600);

  const who = await cli(ctx, ["whoami", "--json"]);
  assert.is(who.code, 0, who.stderr);
  assert.is(who.json.data.address, KEY_ADDRESS);
  assert.ok(who.json.data.sessionExpiresAt > Date.now() / 1000);
  const human = await cli(ctx, ["whoami"]);
  assert.match(human.stdout, new RegExp(`^${KEY_ADDRESS} on ${ctx.d.url}`));

  const account = await cli(ctx, ["account", "--json"]);
  assert.is(account.json.data.address, KEY_ADDRESS);

  const out = await cli(ctx, ["logout", "--json"]);
  assert.is(out.code, 0);
  assert.is(out.json.data.signedOut, true);
  const after = await cli(ctx, ["whoami", "--json"]);
  assert.is(after.code, 4);
  assert.is(after.json.ok, false);
  assert.is(after.json.error.code, "NOT_SIGNED_IN");
});

t("a session the daemon no longer knows gives exit 4 with a hint to sign in", async (ctx) => {
  assert.is((await cli(ctx, ["login", "--wallet", "bob"])).code, 0);
  await sql`delete from sessions`.execute(ctx.d.daemon.store.db);
  const r = await cli(ctx, ["account"]);
  assert.is(r.code, 4);
  assert.match(r.stderr, "npx tradevault login --wallet <name>");
  assert.is(r.stderr.split("npx tradevault login").length, 2, `the daemon's step, not the CLI's fallback too: ${r.stderr}`);
});

t("wrong password exits 1; a daemon that is down exits 3; bad usage exits 2", async (ctx) => {
  const wrong = await cli(ctx, ["login", "--wallet", "bob"], { TRADEVAULT_PASSWORD: "wrong password" });
  assert.is(wrong.code, 1);
  assert.match(wrong.stderr, /wrong password/);
  const down = await cli(ctx, ["login", "--wallet", "bob", "--url", `http://127.0.0.1:${await freePort()}`]);
  assert.is(down.code, 3);
  assert.match(down.stderr, /cannot reach tradevaultd/);
  assert.is((await cli(ctx, ["frobnicate"])).code, 2);
  assert.is((await cli(ctx, ["login", "--bogus-flag"])).code, 2);
  assert.is((await cli(ctx, ["logout"])).code, 0);
  const ambiguous = await cli(ctx, ["login"]);
  assert.is(ambiguous.code, 2, "two wallets, none named, and no session to take one from");
});

t("the installed bin runs from any directory and exits non-zero with one stderr line", async (ctx) => {
  const bin = join(packageRoot(), "bin", "tradevault");
  assert.ok(existsSync(join(packageRoot(), "dist", "cli", "main.js")), "dist/ is missing: run npm run build");
  // Asynchronous on purpose: the daemon under test runs in this process and must keep answering.
  const run = (args: string[]) =>
    new Promise<{ status: number; stdout: string; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        [bin, ...args],
        { cwd: ctx.home.path, env: { ...process.env, TRADEVAULT_HOME: ctx.home.path, TRADEVAULT_URL: ctx.d.url } },
        (err, stdout, stderr) => resolve({ status: err ? Number(err.code) : 0, stdout, stderr }),
      );
    });
  const r = await run(["whoami"]);
  assert.is(r.status, 4, r.stderr);
  assert.is(r.stderr.trim().split("\n").length, 1);
  const help = await run(["--help"]);
  assert.is(help.status, 0);
  assert.match(help.stdout, /login/);
});

t.run();
