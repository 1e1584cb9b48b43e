// Serves the dashboard (dist/web, built by `npm run build:web`) for GET and HEAD on paths the API
// routes did not take. Names are resolved inside the folder only (no traversal, no dotfiles, no
// directory listing); bundles carry a content hash, so they are cached for good, while index.html is
// revalidated each time. Every page answer carries a CSP that allows only this origin.
import { createReadStream, existsSync, statSync } from "node:fs";
import { extname, join, normalize, sep } from "node:path";
import type { Middleware } from "koa";
import { packageRoot } from "../../lib/package-root.js";

/** Where `npm run build:web` puts the dashboard. */
export const dashboardRoot = (): string => join(packageRoot(), "dist", "web");

export const DASHBOARD_CSP = [
  "default-src 'self'", "script-src 'self'", "style-src 'self'", "img-src 'self' data:", "connect-src 'self'",
  "font-src 'self'", "object-src 'none'", "base-uri 'none'", "form-action 'self'", "frame-ancestors 'none'",
].join("; ");

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8",
  ".map": "application/json; charset=utf-8", ".svg": "image/svg+xml", ".png": "image/png", ".ico": "image/x-icon",
  ".json": "application/json; charset=utf-8", ".txt": "text/plain; charset=utf-8",
};

/** The file a URL path names inside `root`, or undefined (outside it, hidden, unknown type, absent). */
export function resolveStatic(root: string, urlPath: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return undefined;
  }
  if (decoded.includes("\0") || decoded.includes("\\")) return undefined;
  const rel = decoded === "/" ? "index.html" : decoded.replace(/^\/+/, "");
  if (rel.split("/").some((part) => part.startsWith(".") || part === "")) return undefined;
  const file = normalize(join(root, rel));
  if (!file.startsWith(root.endsWith(sep) ? root : root + sep)) return undefined;
  if (!TYPES[extname(file)] || !existsSync(file) || !statSync(file).isFile()) return undefined;
  return file;
}

export function staticFiles(root: string = dashboardRoot()): Middleware {
  return async (ctx, next) => {
    await next();
    if (ctx.body !== undefined || ctx.status !== 404) return; // an API route answered
    if (ctx.method !== "GET" && ctx.method !== "HEAD") return;
    if (ctx.path.startsWith("/api/") || ctx.path === "/api") return;
    const file = resolveStatic(root, ctx.path);
    if (!file) return;
    const st = statSync(file);
    const hashed = /-[A-Z0-9]{8}\.(js|css)$/.test(file);
    ctx.status = 200;
    ctx.type = TYPES[extname(file)]!;
    ctx.length = st.size;
    ctx.lastModified = st.mtime;
    ctx.set("Cache-Control", hashed ? "public, max-age=31536000, immutable" : "no-cache");
    ctx.set("X-Content-Type-Options", "nosniff");
    ctx.set("Content-Security-Policy", DASHBOARD_CSP);
    ctx.set("Referrer-Policy", "no-referrer");
    ctx.set("X-Frame-Options", "DENY");
    if (ctx.fresh) {
      ctx.status = 304;
      return;
    }
    // For HEAD, Koa sends the headers only and destroys the unread stream.
    ctx.body = createReadStream(file);
  };
}
