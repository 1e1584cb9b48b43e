// A refusal's next steps in the words of whoever asked (X-Tradevault-Client): the route for any
// client, the command for the CLI, the button for the dashboard. Each command named is one the CLI
// has, each button and tab one the dashboard shows, each route one the daemon serves.
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { Command } from "commander";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { buildProgram } from "../../cli/main.js";
import type { Io } from "../../cli/output.js";
import type { NextStep } from "../../daemon/errors.js";
import { audienceOf, phraseStep, withNextDetails, withNextSteps } from "../../daemon/http/next-steps.js";
import { packageRoot } from "../../daemon/lib/package-root.js";
import { startTestDaemon } from "../helpers/daemon.js";

const VAULT = "0x14791697260E4c9A71f18484C9f997B308e59325";
/** One of each action: a new action that is not phrased here fails the typecheck. */
const EVERY: Record<NextStep["action"], NextStep> = {
  closeVault: { action: "closeVault", vault: VAULT },
  unpauseVault: { action: "unpauseVault", vault: VAULT },
  fundVault: { action: "fundVault", vault: VAULT, amount: "12.5" },
  approveAgent: { action: "approveAgent" },
  signIn: { action: "signIn" },
  takeEventTicket: { action: "takeEventTicket" },
  simFaucet: { action: "simFaucet" },
};
const steps = Object.values(EVERY);
/** What follows the step's goal: "to close the vault: <how>". */
const how = (step: NextStep, audience: "http" | "cli" | "dashboard") => phraseStep(step, audience).split(": ").slice(1).join(": ");

const quiet: Io = { stdout: process.stdout, stderr: process.stderr, stdinIsTTY: false, env: {} };

/** The command a CLI phrase names, found in the real program: its arguments and options must fit. */
function assertRealCommand(line: string): void {
  assert.match(line, /^npx tradevault /, line);
  const words = line.split(" ").slice(2);
  let cmd: Command = buildProgram(quiet);
  const positional: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    const sub = positional.length === 0 ? cmd.commands.find((c) => c.name() === w) : undefined;
    if (sub) cmd = sub;
    else if (w.startsWith("--")) {
      const option = cmd.options.find((o) => o.long === w);
      assert.ok(option, `${line}: ${cmd.name()} has no ${w}`);
      if (option.required || option.optional) i++;
    } else positional.push(w);
  }
  const args = cmd.registeredArguments;
  assert.ok(cmd.name() !== "tradevault", `${line}: no such command`);
  assert.ok(positional.length >= args.filter((a) => a.required).length && positional.length <= args.length,
    `${line}: ${cmd.name()} takes ${args.map((a) => a.name()).join(" ")}`);
}

test("the CLI's words are commands the CLI has, with the vault's address filled in", () => {
  for (const step of steps) assertRealCommand(how(step, "cli"));
  assert.is(how(EVERY.closeVault, "cli"), `npx tradevault vaults close ${VAULT}`);
  assert.is(how(EVERY.fundVault, "cli"), `npx tradevault vaults fund ${VAULT} 12.5`);
});

test("each audience's words for one refusal, with the vault's address and the amount filled in", () => {
  assert.is(how(EVERY.fundVault, "http"),
    `POST /api/vaults/${VAULT}/fund/prepare with amount 12.5, sign its permit with the wallet, then POST /api/vaults/${VAULT}/fund`);
  assert.is(how(EVERY.fundVault, "dashboard"), "the Fund escrow (permit) button on the vault's page (Vaults tab), with 12.5 USDC");
  assert.is(phraseStep(EVERY.unpauseVault, "http"), `for the trader to unpause it: POST /api/vaults/${VAULT}/unpause`);
});

test("the dashboard's words name buttons and tabs the dashboard shows, and no route or command", () => {
  const web = join(packageRoot(), "web");
  const views = join(web, "src", "views");
  const sources = [join(web, "index.html"), join(web, "src", "main.ts"), ...readdirSync(views).map((f) => join(views, f))]
    .map((f) => readFileSync(f, "utf8")).join("\n");
  const tabs = readFileSync(join(web, "index.html"), "utf8");
  for (const step of steps) {
    const text = how(step, "dashboard");
    assert.not.match(text, /\/api\/|tradevault /, text);
    for (const [, label] of text.matchAll(/the (.+?) button/g)) assert.ok(sources.includes(`"${label}"`) || sources.includes(`>${label}<`), `no "${label}" button: ${text}`);
    for (const [, tab] of text.matchAll(/(\w+) tab\b/g)) assert.ok(tabs.includes(`>${tab}</a>`), `no ${tab} tab: ${text}`);
  }
});

test("any other client gets the API's routes, each one the daemon serves", async () => {
  const d = await startTestDaemon();
  try {
    const doc = (await d.http.get("/api/openapi.json")).body;
    const served = new Set(Object.entries(doc.paths as Record<string, object>).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`)));
    for (const step of steps) {
      const text = how(step, "http");
      const routes = [...text.matchAll(/(GET|POST|DELETE) (\/api\/[^\s,?]+)/g)];
      assert.ok(routes.length > 0, text);
      for (const [, method, path] of routes) {
        const documented = path!.replace(VAULT, "{address}");
        assert.ok(served.has(`${method} ${documented}`), `${method} ${path} is not served (${text})`);
      }
    }
  } finally {
    await d.close();
  }
});

test("the header chooses the words: cli and dashboard in any case, anything else the routes", () => {
  assert.equal([undefined, "", "curl/8", "CLI", " dashboard ", "Dashboard"].map(audienceOf), ["http", "http", "http", "cli", "dashboard", "dashboard"]);
  const close = [EVERY.closeVault];
  assert.is(withNextSteps("the vault is paused.", close, "cli"), `the vault is paused. To close the vault: npx tradevault vaults close ${VAULT}`);
  assert.is(withNextSteps("no step", [], "cli"), "no step");
  // The steps as data beside what the details already said; a per-field list stays a list.
  assert.equal(withNextDetails({ owed: "1" }, close), { owed: "1", next: close });
  assert.equal(withNextDetails(undefined, close), { next: close });
  const fields = [{ field: "body.nonce", message: "too old" }];
  assert.is(withNextDetails(fields, close), fields);
});

test("a 401 names the sign-in for the client that asked, and lists it in details.next", async () => {
  const d = await startTestDaemon();
  try {
    const asked = async (client?: string) => {
      const r = await d.http.get("/api/account", client === undefined ? {} : { headers: { "X-Tradevault-Client": client } });
      assert.is(r.status, 401);
      assert.equal(r.body.error.details, { next: [{ action: "signIn" }] });
      return r.body.error.message as string;
    };
    for (const message of [await asked(), await asked("something-else")]) {
      assert.is(message, "not signed in. To sign in: POST /api/auth/challenge, sign its message with the wallet, then POST /api/auth/login");
    }
    assert.is(await asked("cli"), "not signed in. To sign in: npx tradevault login --wallet <name>");
    assert.is(await asked("dashboard"), "not signed in. To sign in: the Connect wallet button");
  } finally {
    await d.close();
  }
});

test("a browser on an allowed origin may send the header (CORS preflight)", async () => {
  const app = "https://app.example";
  const d = await startTestDaemon({ config: { corsOrigins: [app] } });
  try {
    const r = await fetch(`${d.url}/api/account`, {
      method: "OPTIONS",
      headers: { Origin: app, "Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": "authorization,x-tradevault-client" },
    });
    assert.is(r.status, 204);
    assert.match((r.headers.get("access-control-allow-headers") ?? "").toLowerCase(), /(^|,)\s*x-tradevault-client\s*(,|$)/);
  } finally {
    await d.close();
  }
});

test.run();
