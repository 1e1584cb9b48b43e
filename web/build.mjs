// Builds the dashboard into dist/web: one bundle (lightweight-charts included) and the stylesheet,
// named by content hash so the daemon can let browsers cache them for good, index.html pointing at
// them, and the icon it links. Runs in `npm run build` (and so at `npm install`); nothing is fetched
// at run time.
import { build } from "esbuild";
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = fileURLToPath(new URL(".", import.meta.url));
const out = join(here, "..", "dist", "web");
rmSync(out, { recursive: true, force: true });
mkdirSync(join(out, "assets"), { recursive: true });

const result = await build({
  entryPoints: { main: join(here, "src", "main.ts"), style: join(here, "style.css") },
  bundle: true, minify: true, sourcemap: true, format: "esm", target: ["es2022"],
  outdir: join(out, "assets"), entryNames: "[name]-[hash]", metafile: true, logLevel: "warning",
});
const outputs = Object.keys(result.metafile.outputs).map((p) => basename(p));
const js = outputs.find((f) => /^main-.*\.js$/.test(f));
const css = outputs.find((f) => /^style-.*\.css$/.test(f));
if (!js || !css) throw new Error(`unexpected esbuild outputs: ${outputs.join(", ")}`);
const html = readFileSync(join(here, "index.html"), "utf8")
  .replace("/assets/main.js", `/assets/${js}`)
  .replace("/assets/main.css", `/assets/${css}`);
writeFileSync(join(out, "index.html"), html);
// The page links it; without one, browsers ask for /favicon.ico and log the 404 on every load.
copyFileSync(join(here, "favicon.svg"), join(out, "favicon.svg"));
console.log(`dashboard: dist/web/index.html, assets/${js} (${Math.round(result.metafile.outputs[`dist/web/assets/${js}`]?.bytes / 1024 || 0)} KiB), assets/${css}`);
