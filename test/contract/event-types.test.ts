// The event types are one list (daemon/events/event-types.ts). The dashboard imports it; a frontend
// of another site cannot, so the recipe in docs/http-api.md spells it out, and this keeps the two the same.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { readFileSync } from "node:fs";
import { VAULT_EVENT_TYPES } from "../../daemon/events/event-types.js";
import { vaultEventData } from "../../daemon/http/responses.js";

const listIn = (text: string) => JSON.parse(/const EVENT_TYPES = (\[[^\]]*\]);/.exec(text)?.[1] ?? "null") as string[] | null;

test("the frontend recipe (docs/http-api.md) listens for every event type the daemon stores", () => {
  const readme = readFileSync(new URL("../../docs/http-api.md", import.meta.url), "utf8");
  const recipe = readFileSync(new URL("./recipes/frontend.js", import.meta.url), "utf8");
  assert.equal(listIn(recipe), [...VAULT_EVENT_TYPES]);
  assert.equal(listIn(readme), [...VAULT_EVENT_TYPES]);
});

test("every event type has its data schema, and every schema its type", () => {
  assert.equal(Object.keys(vaultEventData).sort(), [...VAULT_EVENT_TYPES].sort());
});

test.run();
