import { test } from "uvu";
import * as assert from "uvu/assert";
import { randomWallet, startTestDaemon } from "../helpers/daemon.js";

test("sign-in routes are limited per IP: 429 RATE_LIMITED with Retry-After, then allowed again", async () => {
  const d = await startTestDaemon({ config: { signInRateLimit: 3 } });
  try {
    const w = randomWallet();
    for (let i = 0; i < 3; i++) assert.is((await d.http.post("/api/auth/challenge", { address: w.address })).status, 200);
    const limited = await d.http.post("/api/auth/login", { address: w.address, signature: "0x" + "1".repeat(130), nonce: "abcdefgh1" });
    assert.is(limited.status, 429);
    assert.is(limited.body.error.code, "RATE_LIMITED");
    const retryAfter = Number(limited.headers.get("retry-after"));
    assert.ok(retryAfter >= 1 && retryAfter <= 20, `Retry-After ${retryAfter}`);
    // reads are not limited
    assert.is((await d.http.get("/healthz")).status, 200);
    d.clock.advance(retryAfter * 1000);
    assert.is((await d.http.post("/api/auth/challenge", { address: w.address })).status, 200);
  } finally {
    await d.close();
  }
});

test.run();
