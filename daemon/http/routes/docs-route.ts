// GET /api/docs: the interactive view of /api/openapi.json (Swagger UI, served from the installed
// swagger-ui-dist package: no CDN, so it works offline and under a CSP that allows only this origin).
// It is a page, not an API operation: it is mounted as middleware, outside the route table, so the
// OpenAPI document does not describe it. Like the document, it needs no session.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { Middleware } from "koa";

export const DOCS_PATH = "/api/docs";

/**
 * Only this origin: scripts, styles, the document; no inline script, no framing. Images may also be
 * data: URIs, which is how swagger-ui.css itself embeds its icons (no other origin is involved).
 */
export const DOCS_CSP = "default-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'; object-src 'none'";

// The initializer is a file of its own: an inline script would need 'unsafe-inline'.
const INIT = `window.ui = SwaggerUIBundle({
  url: "/api/openapi.json",
  dom_id: "#swagger-ui",
  deepLinking: true,
  validatorUrl: null,
  withCredentials: true,
});
`;

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>tradevault API</title>
  <link rel="stylesheet" href="${DOCS_PATH}/assets/swagger-ui.css">
  <link rel="icon" type="image/png" href="${DOCS_PATH}/assets/favicon-32x32.png">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="${DOCS_PATH}/assets/swagger-ui-bundle.js"></script>
  <script src="${DOCS_PATH}/assets/init.js"></script>
</body>
</html>
`;

const PACKAGE_FILES: Record<string, string> = {
  "swagger-ui.css": "text/css; charset=utf-8",
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
  "favicon-32x32.png": "image/png",
};

interface Asset {
  type: string;
  body: Buffer;
}

function loadAssets(): Map<string, Asset> {
  const dir = dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));
  const assets = new Map<string, Asset>();
  assets.set(DOCS_PATH, { type: "text/html; charset=utf-8", body: Buffer.from(PAGE) });
  assets.set(`${DOCS_PATH}/assets/init.js`, { type: "text/javascript; charset=utf-8", body: Buffer.from(INIT) });
  for (const [name, type] of Object.entries(PACKAGE_FILES)) {
    assets.set(`${DOCS_PATH}/assets/${name}`, { type, body: readFileSync(join(dir, name)) });
  }
  return assets;
}

/** Serves the page and its assets on GET and HEAD; everything else passes on to the routes. */
export function apiDocs(): Middleware {
  let assets: Map<string, Asset> | undefined; // read on first use: a daemon nobody browses never loads 1.5 MB
  return async (ctx, next) => {
    if ((ctx.method !== "GET" && ctx.method !== "HEAD") || !ctx.path.startsWith(DOCS_PATH)) return next();
    assets ??= loadAssets();
    const asset = assets.get(ctx.path === `${DOCS_PATH}/` ? DOCS_PATH : ctx.path);
    if (!asset) return next();
    ctx.set("Content-Security-Policy", DOCS_CSP);
    ctx.set("X-Content-Type-Options", "nosniff");
    ctx.set("Cache-Control", ctx.path === DOCS_PATH ? "no-cache" : "public, max-age=3600");
    ctx.type = asset.type;
    ctx.body = asset.body;
  };
}
