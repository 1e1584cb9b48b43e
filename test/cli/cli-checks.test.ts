// What the CLI decides on its own, with no daemon: argument checks before any network call, one
// line per failure (stack traces only with --debug), --version, and the small pure helpers.
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Writable } from "node:stream";
import { runCli, scriptedPrompts } from "../helpers/cli.js";
import { freePort, tempDir } from "../helpers/util.js";
import { packageRoot } from "../../daemon/lib/package-root.js";
import { describeFill } from "../../daemon/trading/describe-fill.js";
import { printWarnings, type Io } from "../../cli/output.js";
import { withProgress } from "../../cli/progress.js";
import { askPassword } from "../../cli/prompt.js";
import { readSse } from "../../cli/sse.js";
import { isAddress, isAmount, isDays, isLimit, isShare } from "../../cli/terms.js";

const t = suite<{ home: ReturnType<typeof tempDir>; url: string }>("cli checks");
t.before(async (ctx) => {
  ctx.home = tempDir("tradevault-checks-");
  // Nothing listens here: a command that went to the network would exit 3, not 2.
  ctx.url = `http://127.0.0.1:${await freePort()}`;
});
t.after((ctx) => ctx.home.remove());

const cli = (ctx: { home: { path: string }; url: string }, args: string[], env: Record<string, string> = {}) =>
  runCli(args, { TRADEVAULT_HOME: ctx.home.path, TRADEVAULT_URL: ctx.url, TRADEVAULT_PASSWORD: "correct horse", ...env });

const ADDR = "0x14791697260E4c9A71f18484C9f997B308e59325";

t("arguments the CLI can check exit 2 in its own words, before any network call", async (ctx) => {
  const cases: Array<[string[], RegExp]> = [
    [["cancel", "abc"], /order id must be a whole number/],
    [["order", "0"], /order id must be a whole number/],
    [["buy", "BTC", "0.1", "--vault", "notanaddress"], /--vault must be an address/],
    [["orders", "--vault", "0x12"], /--vault must be an address/],
    [["vaults", "trades", ADDR, "--from", "yesterday"], /--from must be a date/],
    [["vaults", "trades", ADDR, "--to", "2026-13-45"], /--to must be a date/],
    [["vaults", "trades", ADDR, "--from", "2026-02-30"], /--from must be a date.*"2026-02-30" \(2026-02-30 is no date: that day does not exist\)/],
    [["vaults", "trades", ADDR, "--to", "2026-11-01T25:00"], /--to must be a date.*hours run 00-23/],
    [["vaults", "trades", ADDR, "--to", "2026-11-01T10:00:00+24:00"], /--to must be a date.*names no UTC offset/],
    [["vaults", "export", ADDR, "--trades", "--from", "2025-02-29"], /--from must be a date.*that day does not exist/],
    [["vaults", "trades", "X", "--from", "2026-01-01"], /vault address must be an address/],
    [["vaults", "trades", ADDR, "--limit", "5000"], /--limit must be a whole number from 1 to 1000/],
    [["vaults", "show", "X"], /vault address must be an address/],
    [["proposals", "accept", "first"], /proposal id must be a whole number/],
    [["proposals", "create", "--investor", "bob"], /--investor must be an address/],
    [["proposals", "create", "--max-drawdown", "150"], /--max-drawdown must be a percentage/],
    [["sim", "faucet", "100", "--address", "nope"], /--address must be an address/],
    // A size, price or amount that is not above 0 is one usage error, whatever it is.
    [["buy", "BTC", "-1"], /^tradevault: the size must be a number above 0, got "-1"$/m],
    [["buy", "BTC", "0"], /^tradevault: the size must be a number above 0, got "0"$/m],
    [["sell", "BTC", "0.000"], /the size must be a number above 0/],
    [["buy", "BTC", "0.1", "--price", "0"], /--price must be a number above 0/],
    [["close", "BTC", "--size", "-1"], /--size must be a number above 0/],
    [["close", "BTC", "--size", "0"], /--size must be a number above 0/],
    [["sim", "faucet", "0"], /the amount must be a number above 0/],
    [["sim", "price", "BTC", "0"], /the price must be a number above 0/],
    [["vaults", "fund", ADDR, "-5"], /the amount must be a number above 0/],
  ];
  for (const [args, message] of cases) {
    const r = await cli(ctx, args);
    assert.is(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
    assert.match(r.stderr, message, args.join(" "));
    assert.not.match(r.stderr, /startDate|vaultAddress|orderId|params\./, "the daemon's field names");
    assert.is(r.stderr.trim().split("\n").length, 1, `${args.join(" ")}: one line`);
  }
  for (const [from, to] of [["2026-01-01T10:00:00Z", "1767225600"], ["2026-11-01T10:00", "2028-02-29"], ["2026-11-01T10:00:00.5+05:30", "2026-12-31T23:59:59"]]) {
    const good = await cli(ctx, ["vaults", "trades", ADDR, "--from", from, "--to", to]);
    assert.is(good.code, 3, `valid arguments get as far as the network: --from ${from} --to ${to}: ${good.stderr}`);
  }
});

t("a daemon that is not there is exit 3 for every command, signed in or not; a URL without a scheme is exit 2", async (ctx) => {
  // No session is saved for this URL: "not signed in" would send the user the wrong way.
  for (const args of [["account"], ["whoami"], ["orders"], ["vaults", "list"], ["events"], ["proposals", "list"], ["buy", "BTC", "0.1"]]) {
    const r = await cli(ctx, args);
    assert.is(r.code, 3, `${args.join(" ")}: ${r.stderr}`);
    assert.match(r.stderr, `cannot reach tradevaultd at ${ctx.url}`, args.join(" "));
  }
  for (const [args, env] of [[["account"], { TRADEVAULT_URL: "localhost:8420" }], [["vaults", "list", "--url", "127.0.0.1:8420"], {}],
    [["events"], { TRADEVAULT_URL: "ftp://127.0.0.1:8420" }], [["login"], { TRADEVAULT_URL: "http://" }]] as Array<[string[], Record<string, string>]>) {
    const r = await cli(ctx, args, env);
    assert.is(r.code, 2, `${args.join(" ")} ${JSON.stringify(env)}: ${r.stderr}`);
    assert.match(r.stderr, /is not a daemon URL: it needs http:\/\/ or https:\/\/ and a host/);
    assert.is(r.stderr.trim().split("\n").length, 1);
  }
});

t("a missing key file is one line; no failure prints a stack trace unless --debug", async (ctx) => {
  const r = await cli(ctx, ["wallet", "import", "x", "--private-key-file", "/missing/key"]);
  assert.is(r.code, 2);
  assert.equal(r.stderr.trim().split("\n"), ["tradevault: cannot read --private-key-file /missing/key: no such file"]);
  // An error nobody foresaw (a damaged sessions file) still gives one line and a hint.
  writeFileSync(join(ctx.home.path, "sessions.json"), "{ not json");
  const plain = await cli(ctx, ["whoami"]);
  assert.is(plain.code, 1);
  assert.is(plain.stderr.trim().split("\n").length, 1, plain.stderr);
  assert.not.match(plain.stderr, /\n\s+at /);
  const debug = await cli(ctx, ["whoami", "--debug"]);
  assert.is(debug.code, 1);
  assert.match(debug.stderr, /\n\s+at /, "--debug shows the stack");
  writeFileSync(join(ctx.home.path, "sessions.json"), "{}");
});

t("commander's own errors are one line too, and exit 2", async (ctx) => {
  for (const args of [["frobnicate"], ["login", "--bogus-flag"], ["login", "--walet", "ivy"], ["--jsn"], ["vaults", "show"]]) {
    const r = await cli(ctx, args);
    assert.is(r.code, 2, args.join(" "));
    assert.match(r.stderr, /^tradevault: error: [^\n]+\n$/, `${args.join(" ")}: one line on our stderr, got ${JSON.stringify(r.stderr)}`);
  }
});

t("--version prints the package version", async (ctx) => {
  const version = JSON.parse(readFileSync(join(packageRoot(), "package.json"), "utf8")).version;
  const r = await cli(ctx, ["--version"]);
  assert.is(r.code, 0);
  assert.is(r.stdout.trim(), version);
});

/** The daemon's plain modules: data and words with no run-time imports but each other (docs/design.md section 10). */
const PLAIN = ["daemon/vaults/breach-policies.ts", "daemon/events/event-types.ts", "daemon/events/describe-event.ts",
  "daemon/events/describe-protection.ts", "daemon/events/describe-notice.ts", "daemon/lib/figures.ts", "daemon/trading/describe-fill.ts", "daemon/lib/date-bound.ts"];
const STATEMENTS = /\b(import|export)(\s+type)?\b[^;]*?\bfrom\s*["']([^"']+)["']|\bimport\s*\(\s*["']([^"']+)["']/gs;
/** A file's run-time imports (not `import type`), resolved from the package root. */
const runtimeImports = (file: string) => [...readFileSync(join(packageRoot(), file), "utf8").replace(/^\s*\/\/.*$/gm, "").matchAll(STATEMENTS)]
  .filter((m) => !m[2])
  .map((m) => ({ statement: m[0].replace(/\s+/g, " "), target: join(file, "..", (m[3] ?? m[4])!).replace(/\.js$/, ".ts") }));

t("the CLI loads no daemon code at run time but the plain modules and the verifier, which import nothing but each other and decimals", () => {
  const files = (dir: string): string[] => readdirSync(join(packageRoot(), dir)).flatMap((f) => {
    const p = join(dir, f);
    return statSync(join(packageRoot(), p)).isDirectory() ? files(p) : p.endsWith(".ts") ? [p] : [];
  });
  // `tradevault verify --rpc-url` runs the verifier itself: it reads the chain and the exchange, never the daemon.
  const verifier = files("daemon/verify");
  const mayLoad = (f: string) => new Set(verifier.includes(f) ? [...verifier, "daemon/lib/decimal.ts"] : f.startsWith("cli/") ? [...PLAIN, ...verifier] : PLAIN);
  const offenders = [...files("cli"), ...PLAIN, ...verifier].flatMap((f) => runtimeImports(f)
    // The verifier reads the chain through ethers: packages are its own business, daemon code is not.
    .filter((i) => !(verifier.includes(f) && !/["']\.\.?\//.test(i.statement)))
    .filter((i) => (f.startsWith("daemon/") || i.target.startsWith("daemon/")) && !mayLoad(f).has(i.target))
    .map((i) => `${f}: ${i.statement}`));
  assert.equal(offenders, []);
});

const ttyIo = (tty: boolean) => {
  let err = "";
  const stderr = Object.assign(new Writable({ write(c, _e, cb) { err += String(c); cb(); } }), tty ? { isTTY: true } : {});
  const io: Io = { stdout: new Writable({ write(_c, _e, cb) { cb(); } }), stderr, stdinIsTTY: false, env: {} };
  return { io, err: () => err };
};

t("the spinner shows on a terminal only, never with --json or when stderr is not a TTY", async () => {
  const tty = ttyIo(true);
  assert.is(await withProgress(tty.io, false, "Unlocking", async () => 7), 7);
  assert.match(tty.err(), /Unlocking/);
  assert.ok(tty.err().endsWith("\r\x1b[2K"), "the line is cleared afterwards");
  const json = ttyIo(true);
  await withProgress(json.io, true, "Unlocking", async () => 7);
  assert.is(json.err(), "");
  const pipe = ttyIo(false);
  await withProgress(pipe.io, false, "Unlocking", async () => 7);
  assert.is(pipe.err(), "");
});

t("warnings print one stderr line each, and nothing when there are none", () => {
  const a = ttyIo(false);
  printWarnings(a.io, [{ code: "BALANCE_ABOVE_ACCOUNT", message: "initialBalance 10000 is more than the account holds (500)" }]);
  assert.is(a.err(), "warning: initialBalance 10000 is more than the account holds (500) (BALANCE_ABOVE_ACCOUNT)\n");
  printWarnings(a.io, undefined);
  printWarnings(a.io, []);
  assert.is(a.err().split("\n").length, 2);
});

t("fills in words: grouped digits, partial fills, exponents expanded", () => {
  const fill = { size: 0.3, averagePrice: 59210.5 };
  assert.is(describeFill(fill, "0.3"), "filled 0.3 @ 59,210.5");
  assert.is(describeFill(fill, "0.30"), "filled 0.3 @ 59,210.5", "the same size written with a trailing zero");
  assert.is(describeFill(fill, "0.50"), "filled 0.3 of 0.50 @ 59,210.5");
  assert.is(describeFill(fill), "filled 0.3 @ 59,210.5", "a close of the whole position names no ordered size");
  assert.is(describeFill({ size: 1e-7, averagePrice: 3 }, "0.0000001"), "filled 0.0000001 @ 3");
});

t("proposal terms and new passwords are checked the same on a flag and at a prompt", async () => {
  assert.is(isAddress(ADDR), true);
  assert.type(isAddress("0x1234"), "string");
  assert.is(isAmount("10000"), true);
  assert.type(isAmount("0"), "string");
  assert.type(isAmount("1.1234567"), "string");
  assert.is(isLimit("10"), true);
  assert.type(isLimit("0"), "string");
  assert.type(isLimit("100.01"), "string");
  assert.is(isShare("0"), true);
  assert.is(isDays("30"), true);
  assert.type(isDays("-1"), "string");
  // On a terminal a too-short new password, then a mismatch, are asked again instead of exiting.
  const { prompts, asked } = scriptedPrompts(["short", "long enough", "typo here", "long enough", "long enough"]);
  const io: Io = { ...ttyIo(false).io, stdinIsTTY: true, env: {}, prompts };
  assert.is(await askPassword(io, false, "New password", { confirm: true }), "long enough");
  assert.match(asked[0]!.refused ?? "", /at least 8/);
  assert.is(asked.length, 5);
});

const stream = async function* (chunks: string[]) {
  for (const c of chunks) yield new TextEncoder().encode(c);
};

t("the SSE reader: split chunks, CRLF, comments, multi-line data, events without data", async () => {
  const got = [];
  for await (const m of readSse(stream([": keep-alive\n\n", "id: 7\nevent: Bal", "anceUpdated\r\ndata: {\"a\":", "1}\r\n\r", "\n", "data:x\ndata: y\n\n", "id: 9\n\n"]))) got.push(m);
  assert.equal(got, [
    { id: "7", event: "BalanceUpdated", data: "{\"a\":1}" },
    { id: undefined, event: "message", data: "x\ny" },
  ]);
});

t.run();
