// Part of the benchmarks' smoke test (smoke.test.ts), in a file of its own to spread the slow ones.
import { test } from "uvu";
import { splitSmokeTests } from "./split.js";

splitSmokeTests(test, "smoke-cluster-faults.test.ts");

test.run();
