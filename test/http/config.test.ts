import { test } from "uvu";
import * as assert from "uvu/assert";
import { ConfigError, isLoopback, resolveConfig } from "../../daemon/config.js";

test("defaults: loopback, port 8420, ./data, sim", () => {
  const c = resolveConfig({});
  assert.is(c.host, "127.0.0.1");
  assert.is(c.port, 8420);
  assert.ok(c.dataDir.endsWith("/data"));
  assert.is(c.network, "sim");
  assert.ok(Object.isFrozen(c));
});

test("listening beyond loopback needs TLS or a trusted proxy; NODE_ENV changes nothing", () => {
  const prev = process.env.NODE_ENV;
  process.env.NODE_ENV = "development";
  try {
    assert.throws(() => resolveConfig({ host: "0.0.0.0" }), (e: Error) => e instanceof ConfigError && /TLS|proxy/.test(e.message));
  } finally {
    process.env.NODE_ENV = prev;
  }
  assert.is(resolveConfig({ host: "0.0.0.0", trustProxy: true }).trustProxy, true);
  assert.is(resolveConfig({ host: "10.0.0.5", tlsCert: "c.pem", tlsKey: "k.pem" }).tlsCert, "c.pem");
  assert.throws(() => resolveConfig({ tlsCert: "c.pem" }), /go together/);
});

test("users' reads: 5 s kept, 120 a user and 300 for all a minute; on Hyperliquid the ceiling must leave the oracle its share", () => {
  const c = resolveConfig({});
  assert.equal([c.readCache, c.readWeightPerUser, c.readWeightAllUsers], [5, 120, 300]);
  assert.is(resolveConfig({ readCache: "0.5" }).readCache, 0.5);
  assert.throws(() => resolveConfig({ exchange: "hyperliquid-testnet", readWeightAllUsers: "1000" }), /read-weight-all-users.*less than 1000/);
  assert.is(resolveConfig({ exchange: "hyperliquid-testnet", readWeightAllUsers: "999" }).readWeightAllUsers, 999);
  assert.is(resolveConfig({ readWeightAllUsers: "5000" }).readWeightAllUsers, 5000, "the sim has no request budget to leave");
  assert.throws(() => resolveConfig({ readWeightPerUser: "0" }), (e: Error) => e instanceof ConfigError);
});

test("mainnet needs --allow-mainnet; bad values are refused", () => {
  assert.throws(() => resolveConfig({ exchange: "hyperliquid" }), /allow-mainnet/);
  assert.is(resolveConfig({ exchange: "hyperliquid", allowMainnet: true }).network, "mainnet");
  assert.throws(() => resolveConfig({ port: "99999" }), (e: Error) => e instanceof ConfigError);
  assert.throws(() => resolveConfig({ logLevel: "loud" as never }), (e: Error) => e instanceof ConfigError);
  assert.equal(resolveConfig({ corsOrigins: ["https://app.example/path"] }).corsOrigins, ["https://app.example"]);
});

test("--exchange-url: an http(s) URL, only with the sim, not with --sim-only; its records go to sim-remote", () => {
  const c = resolveConfig({ exchangeUrl: "http://127.0.0.1:9000//" });
  assert.is(c.exchangeUrl, "http://127.0.0.1:9000");
  assert.is(c.network, "sim-remote");
  assert.is(resolveConfig({}).exchangeUrl, undefined);
  for (const exchange of ["hyperliquid-testnet", "hyperliquid"] as const) {
    assert.throws(() => resolveConfig({ exchange, allowMainnet: true, exchangeUrl: "http://127.0.0.1:9000" }), /--exchange-url goes with --exchange sim/);
  }
  assert.throws(() => resolveConfig({ simOnly: true, exchangeUrl: "http://127.0.0.1:9000" }), /--sim-only/);
  assert.throws(() => resolveConfig({ exchangeUrl: "127.0.0.1:9000" }), /invalid --exchange-url \(TRADEVAULT_EXCHANGE_URL\)/);
});

test("--sim-controls: open on a loopback-only daemon, operator once others may reach it; a given mode wins", () => {
  assert.is(resolveConfig({}).simControls, "open");
  assert.is(resolveConfig({ host: "localhost" }).simControls, "open");
  assert.is(resolveConfig({ host: "::1" }).simControls, "open");
  assert.is(resolveConfig({ host: "0.0.0.0", trustProxy: true }).simControls, "operator");
  assert.is(resolveConfig({ host: "10.0.0.5", tlsCert: "c.pem", tlsKey: "k.pem" }).simControls, "operator");
  assert.is(resolveConfig({ publicUrl: "https://paper.example" }).simControls, "operator", "a public URL on loopback: behind something others reach");
  assert.is(resolveConfig({ trustProxy: true }).simControls, "operator", "a proxy on the same box forwards others' requests");
  assert.is(resolveConfig({ host: "0.0.0.0", trustProxy: true, simControls: "open" }).simControls, "open");
  assert.is(resolveConfig({ simControls: "off" }).simControls, "off");
  assert.throws(() => resolveConfig({ simControls: "public" as never }), /invalid --sim-controls \(TRADEVAULT_SIM_CONTROLS\)/);
});

test("isLoopback", () => {
  for (const h of ["127.0.0.1", "127.1.2.3", "::1", "localhost"]) assert.ok(isLoopback(h), h);
  for (const h of ["0.0.0.0", "192.168.1.2", "::", "example.com"]) assert.not.ok(isLoopback(h), h);
});

test.run();
