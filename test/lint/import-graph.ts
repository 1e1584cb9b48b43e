// The import graph of the sources, read with the TypeScript compiler's parser (not a regex), so an
// import split over lines, an `import type`, an `export ... from` and a dynamic `import()` all count.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, posix } from "node:path";
import ts from "typescript";

export interface ImportEdge {
  /** The importing file, relative to the package root ("daemon/http/app.ts"). */
  from: string;
  /** The imported file, relative to the package root, or the bare package name ("koa"). */
  to: string;
  line: number;
  /** Erased at build time: `import type`, `export type`, or every named binding marked `type`. */
  typeOnly: boolean;
}

export function sourceFiles(root: string, dir: string): string[] {
  return readdirSync(join(root, dir)).flatMap((name) => {
    const rel = posix.join(dir, name);
    if (statSync(join(root, rel)).isDirectory()) return sourceFiles(root, rel);
    return /\.tsx?$/.test(name) && !name.endsWith(".d.ts") ? [rel] : [];
  });
}

const typeOnlyBindings = (clause: ts.ImportClause | undefined): boolean => {
  if (!clause) return false; // `import "x"` runs x
  if (clause.isTypeOnly) return true;
  const named = clause.namedBindings;
  return !clause.name && !!named && ts.isNamedImports(named) && named.elements.length > 0
    && named.elements.every((e) => e.isTypeOnly);
};

/** A relative specifier resolved to its .ts source; a package specifier kept as its package name. */
function target(from: string, spec: string): string {
  if (!spec.startsWith(".")) return spec.startsWith("@") ? spec.split("/").slice(0, 2).join("/") : spec.split("/")[0]!;
  return posix.join(posix.dirname(from), spec).replace(/\.js$/, ".ts");
}

export function importsOf(root: string, file: string): ImportEdge[] {
  const text = readFileSync(join(root, file), "utf8");
  const src = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const edges: ImportEdge[] = [];
  const add = (node: ts.Node, spec: ts.Expression, typeOnly: boolean) => {
    if (!ts.isStringLiteralLike(spec)) return;
    const line = src.getLineAndCharacterOfPosition(node.getStart(src)).line + 1;
    edges.push({ from: file, to: target(file, spec.text), line, typeOnly });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) add(node, node.moduleSpecifier, typeOnlyBindings(node.importClause));
    else if (ts.isExportDeclaration(node) && node.moduleSpecifier) add(node, node.moduleSpecifier, node.isTypeOnly);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) add(node, node.argument.literal, true);
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0]) {
      add(node, node.arguments[0], false);
    }
    ts.forEachChild(node, visit);
  };
  visit(src);
  return edges;
}
