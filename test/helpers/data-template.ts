// A new data directory is the dearest part of a test daemon's start: the migrations' synced commits,
// a new operator key, Anvil from genesis with every contract deployed, and the chain's first state
// dump at stop (about 2 s of a 3 s start and stop on this 2-core machine). A test that wants a fresh
// daemon, not a fresh deployment, gets a copy of a data directory made once per test run: the daemon
// opens it as a restart (its own keys, its own Anvil restored from the copied snapshot), so each test
// daemon still has a chain and a database of its own. scripts/run-tests.js names the run's folder in
// TRADEVAULT_TEST_TEMPLATES (removed at the end of the run); without it (a file run alone) every
// daemon starts from nothing, as before.
import { createHash, randomBytes } from "node:crypto";
import { cpSync, existsSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { ConfigInput } from "../../daemon/config.js";

/**
 * Settings that change nothing a daemon writes into a new data directory: a test giving only these
 * shares the run's template. Any other setting (the network, the exchange, an external chain, the
 * sim's controls, ...) gets a template of its own.
 */
const RUNTIME_ONLY = new Set<string>([
  "port", "host", "publicUrl", "logLevel", "corsOrigins", "trustProxy", "signInRateLimit", "orderRateLimit",
  "oracleInterval", "staleAfter", "breachMargin", "marketSlippage", "exchangeTimeout", "sessionMaxAgeDays",
  "metricsPort", "priceStream", "deadManSeconds", "simFeed", "readCache", "readWeightPerUser", "readWeightAllUsers",
]);

/** A chain's genesis is the clock of its first start: a test whose clock is far from now gets a fresh one. */
const NEAR_NOW_MS = 3_600_000;

/** The run's template of a data directory for this config, if the run keeps templates and this test may use one. */
export function templateKey(config: Partial<ConfigInput>, clockNow: number): string | undefined {
  if (!process.env.TRADEVAULT_TEST_TEMPLATES || Math.abs(clockNow - Date.now()) > NEAR_NOW_MS) return undefined;
  const shaping = Object.entries(config).filter(([k, v]) => !RUNTIME_ONLY.has(k) && v !== undefined).sort(([a], [b]) => a.localeCompare(b));
  return createHash("sha256").update(JSON.stringify(shaping)).digest("hex").slice(0, 16);
}

/**
 * Copies the template named `key` into `dataDir` (empty), making it first with `make` if this run has
 * none yet. Two files may make the same template at once: each builds in a folder of its own and
 * renames it into place (atomic), and the one that loses throws its copy away.
 */
export async function fromTemplate(key: string, dataDir: string, make: (dir: string) => Promise<void>): Promise<void> {
  const root = process.env.TRADEVAULT_TEST_TEMPLATES!;
  const template = join(root, key);
  if (!existsSync(template)) {
    const building = join(root, `${key}.building-${process.pid}-${randomBytes(4).toString("hex")}`);
    try {
      await make(building);
      renameSync(building, template);
    } catch (err) {
      rmSync(building, { recursive: true, force: true });
      if (!existsSync(template)) throw err;
    }
  }
  // Modes are copied too: keys/ stays 0700 and its files 0600, as the daemon checks.
  cpSync(template, dataDir, { recursive: true });
}
