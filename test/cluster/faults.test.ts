// Three daemons on one PostgreSQL under faults at seeded moments (fault-scenario.ts): two SIGSTOPs
// longer than a lease (one made while the daemon has a transaction open), a SIGKILL and restart, and
// PostgreSQL stopped and started, with sign-ins, reads, orders under Idempotency-Keys, new vaults and
// an SSE client on each daemon throughout. Then the checker over the whole history: one lease holder
// per vault and epoch, one sender per epoch, no nonce or relayed request mined twice, every
// acknowledged write present, event ids in commit order and no SSE client skipping or repeating; and
// a stall must not freeze the others (every vault written by another daemon while the stalled one is
// stopped, and sign-ins on the healthy daemons not waiting on it: p50 under 2 s here, where the
// whole suite shares the machine; the two-interval failover and the 100 ms p99 sign-in targets are
// the cluster-faults benchmark's). The seed is printed; TEST_SEED replays it.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { only } from "../helpers/stores.js";
import { checkStall, measureFault, percentile, TEST_STALL } from "./fault-measures.js";
import { runFaultScenario } from "./fault-scenario.js";
import { checkHistory } from "./history-checker.js";

const INTERVAL_S = 2;

only("postgres", test)("three daemons under SIGSTOP, SIGKILL and a database outage keep every rule", async () => {
  const seed = process.env.TEST_SEED ? Number(process.env.TEST_SEED) : Math.floor(Math.random() * 2 ** 31);
  const run = await runFaultScenario({
    seed, intervalS: INTERVAL_S, vaults: 9, extraVaults: 3,
    faults: ["stall", "caught-stall", "kill", "db"],
    stallIntervals: [4, 5], dbOutageS: [4, 8], gapS: [2, 8],
  }, (line) => console.log(`[faults] ${line}`));
  const h = run.history;

  const problems: string[] = run.exits.map((e) => `a daemon exited: ${e}`);
  for (const { rule, violations } of checkHistory(h)) {
    if (violations.length > 0) problems.push(`${rule}:\n    ${violations.slice(0, 15).join("\n    ")}${violations.length > 15 ? `\n    ... ${violations.length - 15} more` : ""}`);
  }
  for (const fault of h.faults) {
    const f = measureFault(h, fault);
    const finite = f.failoverMs.filter(Number.isFinite);
    const failover = fault.kind === "db" ? "" : `${f.victimVaults.length} vaults, failover p50 ${finite.length ? percentile(finite, 50) : "-"} ms, ` +
      `max ${finite.length < f.failoverMs.length ? "none before it ended" : `${Math.max(...finite)} ms`}; leases out ${f.leasesExpireMs - fault.fromMs} ms after; `;
    console.log(`[faults] ${fault.kind}${fault.daemon === undefined ? "" : ` of daemon ${fault.daemon}`}${fault.caught ? " (in a transaction)" : ""}: ${failover}` +
      `longest with no balance written ${f.freezeMs} ms of ${fault.toMs - fault.fromMs} ms; ` +
      `sign-ins on the others p99 ${f.signInMs.length ? `${percentile(f.signInMs, 99)} ms` : "-"} (${f.signInMs.length}, ${f.signInFailures} failed)`);
    if (fault.kind === "stall") problems.push(...checkStall(f, h.intervalS, TEST_STALL));
  }
  if (problems.length > 0 && process.env.TEST_DUMP_LOGS) console.log(run.complaints);
  assert.ok(problems.length === 0, `seed ${seed} (TEST_SEED=${seed} to replay):\n  ${problems.join("\n  ")}`);
});

test.run();
