// What a complete backup of a data directory holds, by the directory's kind: which networks its
// daemon ran on (the sim's network brings the sim's own database), which chains it has deployment
// records for (embedded or external), and whether the operator key and the key that seals agent keys
// live in it (not when --operator-key-file or TRADEVAULT_SECRET keep them elsewhere). The backup
// records this in its manifest; restore derives the files it requires from that record and from the
// databases the backup itself carries, so a file dropped from both the folder and the manifest's file
// list is still missed.
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";

export const SIM_DB = "sim-exchange.db";
/** The embedded sim's network: its daemon database goes with the sim's own (SIM_DB). */
const SIM_NETWORK = "sim";
export const isDaemonDb = (name: string) => /^tradevault-[a-z-]+\.db$/.test(name);
const networkOf = (path: string) => /^tradevault-([a-z-]+)\.db$/.exec(path)?.[1];
const DEPLOYMENT = /^((?:external-)?\d+)\.json$/;

export const holdsSchema = z.object({
  /** tradevault-<network>.db for each. */
  networks: z.array(z.string().regex(/^[a-z-]+$/)).min(1),
  /** chain/<key>.json for each: "31337" is the embedded chain, "external-<chainId>" an RPC chain. */
  chains: z.array(z.string().regex(/^(external-)?\d+$/)),
  /** keys/operator.key; false when the operator key was kept elsewhere (--operator-key-file). */
  operatorKey: z.boolean(),
  /** keys/secret.key; false when agent keys are sealed under TRADEVAULT_SECRET. */
  secretKey: z.boolean(),
}).strict();

export type Holds = z.infer<typeof holdsSchema>;

/** Names in `dir` that pass `keep`, whatever they are (a link or a folder counts: the backup must then say so). */
function namesIn(dir: string, keep: (name: string) => boolean): string[] {
  return statSync(dir, { throwIfNoEntry: false })?.isDirectory() ? readdirSync(dir).filter(keep).sort() : [];
}

/** The kind of `dataDir`, from what is in it. */
export function holdsOf(dataDir: string): Holds {
  return {
    networks: namesIn(dataDir, isDaemonDb).map((n) => networkOf(n)!),
    chains: namesIn(join(dataDir, "chain"), (n) => DEPLOYMENT.test(n)).map((n) => DEPLOYMENT.exec(n)![1]!),
    operatorKey: namesIn(join(dataDir, "keys"), (n) => n === "operator.key").length > 0,
    secretKey: namesIn(join(dataDir, "keys"), (n) => n === "secret.key").length > 0,
  };
}

export interface RequiredFile {
  path: string;
  /** What it is, for the message naming it. */
  what: string;
}

/**
 * Every file a complete backup holds, from its record (`holds`, absent in format 1) and from the
 * databases it names: a daemon database of the sim's network requires the sim's database, whatever
 * the record says.
 */
export function requiredFiles(holds: Holds | undefined, databases: readonly string[]): RequiredFile[] {
  const networks = new Set([...(holds?.networks ?? []), ...databases.map(networkOf).filter((n): n is string => n !== undefined)]);
  const out: RequiredFile[] = [...networks].map((n) => ({ path: `tradevault-${n}.db`, what: `the daemon's database for ${n}` }));
  if (networks.has(SIM_NETWORK)) out.push({ path: SIM_DB, what: "the embedded sim's exchange (accounts, orders, positions)" });
  for (const db of databases) if (!out.some((f) => f.path === db)) out.push({ path: db, what: "a database the manifest names" });
  for (const key of holds?.chains ?? []) {
    out.push({ path: `chain/${key}.json`, what: key.startsWith("external-") ? `the deployment record of chain ${key.slice(9)}` : "the embedded chain's deployment record" });
  }
  if (holds?.operatorKey) out.push({ path: "keys/operator.key", what: "the operator key" });
  if (holds?.secretKey) out.push({ path: "keys/secret.key", what: "the key that seals the agent keys" });
  return out;
}
