// npm run docs [-- --check]: renders the generated sections of docs/configuration.md (the daemon's
// flags and commands) and docs/api-reference.md (the route table) from the code, leaving the
// hand-written text around them as it is. --check writes nothing and exits 1 naming what drifted.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { packageRoot } from "../daemon/lib/package-root.js";
import { driftOf, PAGES, readPage, regenerated } from "./reference-docs/pages.js";

const { values } = parseArgs({ options: { check: { type: "boolean", default: false } } });
const root = packageRoot();
let failed = false;
for (const page of PAGES) {
  if (values.check) {
    const problems = await driftOf(page, root);
    for (const p of problems) console.error(p);
    failed ||= problems.length > 0;
    continue;
  }
  const next = await regenerated(page, root);
  const changed = next !== readPage(page, root);
  if (changed) writeFileSync(join(root, page.path), next);
  console.log(`${page.path}: ${changed ? "regenerated" : "already in step"}`);
}
process.exitCode = failed ? 1 : 0;
