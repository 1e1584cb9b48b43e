// docs/configuration.md and docs/api-reference.md against the code they are generated from (FLAGS and
// the commands of cli-entry.ts; the route table): each page's generated section is rendered again in
// memory, and a flag, command or route added, changed or removed without `npm run docs` is named.
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { packageRoot } from "../../daemon/lib/package-root.js";
import { declaredRoutes } from "../../scripts/reference-docs/api-reference.js";
import { drift, generatedSection, splice, text } from "../../scripts/reference-docs/markdown.js";
import { driftOf, PAGES, readPage } from "../../scripts/reference-docs/pages.js";

const t = suite("reference-docs");
const root = packageRoot();
const page = (path: string) => PAGES.find((p) => p.path === path)!;

for (const { path } of PAGES) {
  t(`${path} is what npm run docs renders from the code`, async () => {
    assert.equal(await driftOf(page(path), root), []);
  });
}

t("the generator reads every route group the daemon mounts, and only those", async () => {
  // The API's one list (daemon/http/api-routes.ts) spreads each group's factory into it.
  const mounted = new Set([...readFileSync(join(root, "daemon/http/api-routes.ts"), "utf8").matchAll(/\.\.\.\(?(?:[\w.]+ \? )?([a-z]\w*Routes?)\(/g)].map((m) => m[1]!));
  const { factories, routes } = await declaredRoutes();
  assert.equal(factories, [...mounted].sort());
  assert.ok(routes.length > 40, `read only ${routes.length} routes`);
  assert.equal(routes.filter((r, i) => routes.findIndex((o) => o.method === r.method && o.path === r.path) !== i), [], "no operation twice");
});

t("a row the page lacks, says otherwise, or should no longer have is named, with the fix", async () => {
  const config = page("docs/configuration.md");
  const fresh = await config.render();
  const doc = readPage(config, root);
  const portRow = fresh.split("\n").find((l) => l.startsWith("| `--port <port>`"))!;
  const without = splice(doc, fresh.replace(`${portRow}\n`, ""), config.path);
  assert.equal(drift(config.path, without, fresh), [`docs/configuration.md lacks --port <port> (under "Serving the API"): run npm run docs`]);
  const changed = splice(doc, fresh.replace(portRow, portRow.replace("`8420`", "`8421`")), config.path);
  assert.equal(drift(config.path, changed, fresh), [`docs/configuration.md is out of date for --port <port> (under "Serving the API"): run npm run docs`]);
  const extra = splice(doc, fresh.replace(portRow, `${portRow}\n| \`--gone <x>\` | \`TRADEVAULT_GONE\` | none | gone |`), config.path);
  assert.match(drift(config.path, extra, fresh).join("\n"), /still has --gone <x> \(under "Serving the API"\), which the code no longer has: run npm run docs/);
  const prose = splice(doc, fresh.replace("## Commands", "## Commandz"), config.path);
  assert.match(drift(config.path, prose, fresh).join("\n"), /run npm run docs/);
});

t("regenerating keeps the hand-written text and is the same twice", async () => {
  for (const p of PAGES) {
    const doc = readPage(p, root);
    const generated = await p.render();
    const once = splice(doc, generated, p.path);
    assert.is(splice(once, await p.render(), p.path), once);
    assert.is(once.slice(0, once.indexOf("<!-- generated")), doc.slice(0, doc.indexOf("<!-- generated")));
    assert.is(generatedSection(once, p.path), generated.trimEnd());
    assert.not.match(generated, /\d{4}-\d{2}-\d{2}T\d{2}:/, `${p.path}: no timestamps`);
  }
});

t("a cell stays one cell, and a <placeholder> stays visible", () => {
  assert.is(text("random | static | <csv file>"), "random \\| static \\| `<csv file>`");
  assert.is(text("with <data-dir>/keys/operator.token) or `a|b`"), "with `<data-dir>/keys/operator.token`) or `a\\|b`");
  assert.is(text("into <dir>."), "into `<dir>`.");
  assert.is(text("two\nlines"), "two lines");
});

t.run();
