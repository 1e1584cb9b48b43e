// The breach policies are one table (daemon/vaults/breach-policies.ts): its codes are the contract's,
// and what the API, the OpenAPI document, the CLI and the dashboard offer is built from it.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { readFileSync } from "node:fs";
import { MAX_BREACH_POLICY } from "../../daemon/chain/terms.js";
import { BREACH_POLICIES, BREACH_POLICY_TABLE, breachPolicyCode, breachPolicyName } from "../../daemon/vaults/breach-policies.js";
import { BREACH_POLICY_CHOICES, BREACH_POLICY_TEXT } from "../../cli/terms.js";
import { buildOpenApi } from "../../daemon/http/openapi.js";
import { proposalRoutes } from "../../daemon/http/routes/proposal-routes.js";
import { vaultRoutes } from "../../daemon/http/routes/vault-routes.js";

test("each policy's code is its index, and the last is the contract's MAX_BREACH_POLICY", () => {
  BREACH_POLICY_TABLE.forEach((p, i) => {
    assert.is(p.code, i, p.name);
    assert.is(breachPolicyCode(p.name), i);
    assert.is(breachPolicyName(i), p.name);
  });
  const sol = readFileSync(new URL("../../contracts/VaultFactory.sol", import.meta.url), "utf8");
  const onChain = Number(/MAX_BREACH_POLICY\s*=\s*(\d+)/.exec(sol)?.[1]);
  assert.is(onChain, BREACH_POLICY_TABLE.length - 1, "the contract deploys exactly the table's codes");
  assert.is(MAX_BREACH_POLICY, onChain, "the chain module mirrors the contract's bound");
  assert.is(breachPolicyName(99), "pause", "a code this daemon does not know reads as the strictest");
});

test("the OpenAPI enums, the CLI's help and its explanations come from the table", () => {
  const doc = JSON.stringify(buildOpenApi([...proposalRoutes({} as never), ...vaultRoutes({} as never)], { version: "t", serverUrl: "http://x" }));
  const enums = [...doc.matchAll(/"enum":\[("pause"[^\]]*)\]/g)].map((m) => JSON.parse(`[${m[1]}]`));
  assert.ok(enums.length >= 2, "the proposal body and the vault detail carry the enum");
  for (const e of enums) assert.equal(e, [...BREACH_POLICIES]);
  for (const p of BREACH_POLICY_TABLE) {
    assert.ok(BREACH_POLICY_TEXT[p.name]?.includes(p.summary), p.name);
    assert.ok(BREACH_POLICY_CHOICES.includes(p.name), p.name);
  }
  const last = BREACH_POLICY_TABLE.at(-1)!.name;
  assert.ok(BREACH_POLICY_CHOICES.startsWith("pause (default), ") && BREACH_POLICY_CHOICES.endsWith(` or ${last}`), BREACH_POLICY_CHOICES);
});

test.run();
