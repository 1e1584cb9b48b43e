// A sim shared on one box must not lock a daemon out unseen: with the sim's per-IP WebSocket limit
// taken by ten other loopback clients, the daemon's price stream is refused at every try, and
// /healthz says priceStream.degraded after three oracle intervals while still answering 200 (the
// oracle polls on). Once the others leave, the stream comes back and degraded clears. The limit is
// raised with --sim-ws-connections-per-ip.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { resolveConfig } from "../../daemon/config.js";
import { createSim } from "../../daemon/main.js";
import { fakeClock, startTestDaemon } from "../helpers/daemon.js";
import { freePort, tempDir, waitUntil } from "../helpers/util.js";
import { Probe } from "../sim/ws-probe.js";

async function sharedSim(extra: { simWsConnectionsPerIp?: number } = {}) {
  const dir = tempDir();
  const sim = createSim(resolveConfig({ dataDir: dir.path, simPort: await freePort(), simFeed: "static", simOnly: true, ...extra }), Date.now);
  await sim.start();
  return { sim, async stop() { await sim.stop(); dir.remove(); } };
}

/** Loopback clients that each hold a subscribed socket (so each really counts against the limit). */
async function others(port: number, n: number): Promise<Probe[]> {
  const probes: Probe[] = [];
  for (let i = 0; i < n; i++) {
    const p = await Probe.open(port);
    const at = await p.subscribe({ type: "allMids" });
    assert.is(p.messages[at - 1].channel, "subscriptionResponse", `client ${i + 1} is admitted`);
    probes.push(p);
  }
  return probes;
}

test("with the sim's WebSocket limit taken, /healthz says the price stream is degraded after three intervals, and stays 200", async () => {
  const shared = await sharedSim();
  const probes = await others(shared.sim.port, 10);
  const d = await startTestDaemon({
    clock: fakeClock(Date.now(), { realTime: true }),
    config: { exchangeUrl: shared.sim.url, oracleInterval: 1, staleAfter: 2 },
  });
  try {
    const early = (await d.http.get("/healthz")).body.data.priceStream;
    assert.is(early.degraded, early.downSeconds > 3, "degraded only past three 1-second intervals");
    const degraded = await waitUntil(async () => {
      const r = await d.http.get("/healthz");
      return r.body.data.priceStream.degraded ? r : undefined;
    }, { what: "priceStream.degraded", slowMs: 30_000 });
    assert.is(degraded!.status, 200, "a degraded part, not a failed daemon");
    assert.is(degraded!.body.data.status, "ok");
    assert.is(degraded!.body.data.oracle.status, "ok", "the oracle still polls");
    assert.ok(degraded!.body.data.priceStream.downSeconds > 3, `down ${degraded!.body.data.priceStream.downSeconds} s`);
    assert.ok(degraded!.body.data.priceStream.connects >= 1, "the sim let the socket open, then closed it: that is not up");

    for (const p of probes) p.socket.close();
    const back = await waitUntil(async () => {
      const r = await d.http.get("/healthz");
      return r.body.data.priceStream.state === "open" && !r.body.data.priceStream.degraded ? r : undefined;
    }, { what: "the stream back and degraded cleared", slowMs: 60_000 });
    assert.is(back!.body.data.priceStream.downSeconds, null);
  } finally {
    await d.close();
    for (const p of probes) p.socket.terminate();
    await shared.stop();
  }
});

test("--sim-ws-connections-per-ip raises the sim's per-IP limit (the venue's 10 by default)", async () => {
  const shared = await sharedSim({ simWsConnectionsPerIp: 12 });
  try {
    const probes = await others(shared.sim.port, 12);
    const refused = await Probe.open(shared.sim.port);
    await waitUntil(() => refused.closeCode !== undefined, { what: "the 13th socket closed" });
    assert.is(refused.closeCode, 1008);
    assert.match(JSON.stringify(refused.messages), /Cannot open more than 12 websocket connections/);
    for (const p of probes) p.socket.terminate();
  } finally {
    await shared.stop();
  }
});

test.run();
