// The backup's manifest: what the backup holds (each file with its size and SHA-256), which versions
// made it, and which database migration each database had reached. Written last and atomically, so a
// folder without a readable manifest is a backup that never finished. Restore trusts nothing in the
// folder that the manifest does not vouch for.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { AppError } from "../errors.js";
import { notRegularFile } from "./files.js";
import { holdsSchema } from "./holds.js";

export const MANIFEST = "manifest.json";
export const FORMAT = "tradevault-backup";
/** 2: the manifest records what the backup holds (`holds`), and restore requires all of it. */
export const FORMAT_VERSION = 2;

/** A path inside the backup: relative, "/"-separated, never leaving the folder. */
const relativePath = z.string().regex(/^(?!\/)(?!.*(^|\/)\.\.?(\/|$))[A-Za-z0-9._\/-]+$/, "must be a plain relative path inside the backup");

const fileEntry = z.object({
  path: relativePath,
  kind: z.enum(["database", "key", "deployment", "snapshot"]),
  bytes: z.number().int().nonnegative(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
});

export const manifestSchema = z.object({
  format: z.literal(FORMAT),
  formatVersion: z.number().int().positive(),
  createdAt: z.string(),
  source: z.object({ dataDir: z.string(), hostname: z.string() }),
  versions: z.object({ tradevault: z.string(), node: z.string(), sqlite: z.string(), anvil: z.string().nullable() }),
  /** The last migration each daemon database had run (sim-exchange.db has none). */
  databases: z.array(z.object({ path: relativePath, migration: z.string().nullable() })),
  files: z.array(fileEntry).min(1),
  /** The kind of data directory backed up (holds.ts); format 1 did not record it. */
  holds: holdsSchema.optional(),
}).refine((m) => m.formatVersion < 2 || m.holds !== undefined, { path: ["holds"], message: "is missing" });

export type Manifest = z.infer<typeof manifestSchema>;
export type FileEntry = z.infer<typeof fileEntry>;

const refuse = (dir: string, why: string, details?: Record<string, unknown>) =>
  new AppError("INVALID_INPUT", `${dir} is not a usable backup: ${why}`, { details });

/** Reads and checks the manifest's shape; a missing, truncated or foreign one is refused. */
export function readManifest(dir: string): Manifest {
  const bad = notRegularFile(dir, MANIFEST);
  if (bad?.problem === "not-a-file") throw refuse(dir, bad.message, { problem: bad.problem, file: MANIFEST });
  let text: string;
  try {
    text = readFileSync(join(dir, MANIFEST), "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT") throw refuse(dir, `${MANIFEST} is missing (the backup did not finish, or this folder is not a backup)`, { problem: "incomplete" });
    throw refuse(dir, `cannot read ${MANIFEST}: ${(e as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw refuse(dir, `${MANIFEST} is damaged (not valid JSON; truncated?)`, { problem: "damaged", file: MANIFEST });
  }
  const parsed = manifestSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw refuse(dir, `${MANIFEST} is damaged: ${issue?.path.join(".") || "(root)"} ${issue?.message ?? "is invalid"}`, { problem: "damaged", file: MANIFEST });
  }
  if (parsed.data.formatVersion > FORMAT_VERSION) {
    throw refuse(dir, `it was made by a newer tradevault (${parsed.data.versions.tradevault}, backup format ${parsed.data.formatVersion}); restore it with that version or later`, { problem: "version" });
  }
  return parsed.data;
}

export { refuse as backupRefused };
