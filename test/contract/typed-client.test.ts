// A frontend's view of the contract: types generated with openapi-typescript from the live
// /api/openapi.json, and a small client (client/) that calls every operation and reads a field of
// each answer, typechecked with one in-process tsc run. An answer that loses its type (unknown, an
// open object), a renamed field or an undocumented error code fails here.
import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import openapiTS, { astToString } from "openapi-typescript";
import ts from "typescript";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { startTestDaemon } from "../helpers/daemon.js";
import { tempDir } from "../helpers/util.js";

const CLIENT = new URL("./client/", import.meta.url).pathname;

/** Type errors of `entry` (and what it imports) under strict settings, one line each. */
function typeErrors(entry: string): string[] {
  const program = ts.createProgram([entry], {
    strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext, lib: ["lib.es2023.d.ts", "lib.dom.d.ts"], types: [], skipLibCheck: true,
  });
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const text = ts.flattenDiagnosticMessageText(d.messageText, "\n");
    if (!d.file || d.start === undefined) return text;
    const { line } = d.file.getLineAndCharacterOfPosition(d.start);
    return `${d.file.fileName.split("/").pop()}:${line + 1}: ${text}`;
  });
}

test("types generated from /api/openapi.json type a client that calls every operation", async () => {
  const d = await startTestDaemon();
  const dir = tempDir("tradevault-contract-");
  try {
    const doc = (await d.http.get("/api/openapi.json")).body;
    writeFileSync(join(dir.path, "api.d.mts"), astToString(await openapiTS(doc)));
    for (const f of ["typed-fetch.mts", "every-operation.mts"]) copyFileSync(join(CLIENT, f), join(dir.path, f));

    const source = readFileSync(join(CLIENT, "every-operation.mts"), "utf8");
    const called = new Set([...source.matchAll(/call\("(get|post|delete)", "([^"]+)"/g)].map((m) => `${m[1]} ${m[2]}`));
    const documented = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m} ${p}`));
    assert.equal(documented.filter((op) => !called.has(op)), [], "every documented operation is called by the client");

    const errors = typeErrors(join(dir.path, "every-operation.mts"));
    assert.equal(errors, [], `the client does not typecheck against the generated types:\n${errors.join("\n")}`);
  } finally {
    dir.remove();
    await d.close();
  }
});

test.run();
