// What the route fuzz runs against: a daemon on the embedded defaults (sim exchange, embedded chain)
// whose error-level log lines are kept, two signed-in parties with a vault between them, a pending
// proposal, a resting order and a webhook, so valid values reach the services and not only the
// schemas. The hints name those values by field.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import pino from "pino";
import { createVault, party, randomWallet, signIn, signTyped, startTestDaemon, type Party, type TestDaemon } from "../../helpers/daemon.js";
import type { Hints, Rng } from "./fuzz-values.js";

export interface World {
  d: TestDaemon;
  users: { ivy: Party; tom: Party };
  vault: string;
  proposalId: number;
  orderId: number;
  webhookId: string;
  /** Error-level (and worse) log lines the daemon wrote, oldest first. */
  errors: string[];
  /** Field values that reach the services: the world's vault, parties, order, proposal and webhook. */
  hints(op: string): Hints;
  /** Signs the party in again (after a fuzzed logout ended its session). */
  refresh(who: "ivy" | "tom"): Promise<void>;
  hookUrl: string;
  close(): Promise<void>;
}

/** A logger that keeps every line at error level or above (pino's 50+) and drops the rest. */
function errorLog(errors: string[]) {
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split("\n").filter(Boolean)) if ((JSON.parse(line) as { level: number }).level >= 50) errors.push(line);
      done();
    },
  });
  return pino({ level: "error" }, sink);
}

/** A webhook receiver on loopback that answers 204 to everything. */
async function receiver(): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => req.resume().on("end", () => res.writeHead(204).end()));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook` };
}

/**
 * The world, on the embedded defaults but for one flag: webhooks may reach loopback, where the fuzz's
 * receiver is, so a webhook's test and deliveries run to the end instead of failing name resolution.
 */
export async function fuzzWorld(): Promise<World> {
  const errors: string[] = [];
  const hook = await receiver();
  const d = await startTestDaemon({ log: errorLog(errors), startOracle: false, config: { webhooksAllowPrivate: true } });
  const stop = async () => {
    await d.close();
    await new Promise((r) => hook.server.close(r));
  };
  try {
    return { ...(await populate(d, errors, hook.url)), close: stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

async function populate(d: TestDaemon, errors: string[], hookUrl: string): Promise<Omit<World, "close">> {
  const [ivy, tom] = await Promise.all([party(d, { usdc: 20_000, agent: true }), party(d, { usdc: 20_000, agent: true })]);
  const vault = await createVault(d, ivy, tom);
  await d.daemon.oracle.cycle(); // a fresh balance: vault orders reach the exchange
  const when = Math.floor(d.clock() / 1000);
  const proposal = await d.http.post("/api/proposals", {
    investor: tom.address, trader: ivy.address, initialBalance: "1000", maxDrawdown: 10, dailyDrawdown: 5,
    dealDeadline: when + 30 * 86_400, profitShare: { trader: 20, investor: 80 },
  }, { token: tom.token });
  const order = await d.http.post("/api/trade", { symbol: "BTC", side: "buy", size: 0.001, price: 30_000 }, { token: tom.token });
  const webhook = await d.http.post("/api/webhooks", { url: hookUrl }, { token: tom.token });
  for (const [what, r] of [["proposal", proposal], ["order", order], ["webhook", webhook]] as const) {
    if (r.status !== 200) throw new Error(`fuzz world: the ${what} failed: ${JSON.stringify(r.body)}`);
  }
  const proposalId = proposal.body.data.proposal.id as number;
  const typedData = proposal.body.data.proposal.typedData;
  // Signatures that are valid ECDSA (they pass the schema) but sign the wrong thing or as the wrong key.
  const signatures = await Promise.all([signTyped(randomWallet(), typedData), randomWallet().signMessage("fuzz"), signTyped(ivy.wallet, typedData)]);
  const users = { ivy, tom };
  const world: Omit<World, "close"> = {
    d, users, hookUrl, vault, proposalId, orderId: order.body.data.orderId, webhookId: webhook.body.data.webhook.id, errors,
    hints: (op) => hintsFor(world, op, signatures, when),
    async refresh(who) {
      users[who] = { ...users[who], token: (await signIn(d.http, users[who].wallet)).token };
    },
  };
  return world;
}

function hintsFor(w: Omit<World, "close">, op: string, signatures: string[], now: number): Hints {
  const { ivy, tom } = w.users;
  const someAddress = (rng: Rng) => rng.pick([w.vault, w.vault, ivy.address, `0x${rng.hex(40)}`, w.vault.toLowerCase()]);
  const id = op.includes("/api/webhooks/")
    ? (rng: Rng) => rng.pick([w.webhookId, w.webhookId, `wh_${rng.hex(16)}`])
    : (rng: Rng) => rng.pick([w.proposalId, w.proposalId, w.proposalId + 1000]);
  return {
    address: someAddress, vaultAddress: someAddress, "vaults[]": someAddress, id,
    investor: () => ivy.address, trader: () => tom.address, exchangeAccount: (rng) => rng.pick([ivy.address, tom.address]),
    orderId: (rng) => rng.pick([w.orderId, w.orderId, w.orderId + 7]),
    symbol: (rng) => rng.pick(["BTC", "BTC", "ETH", "DOGE"]),
    size: (rng) => rng.pick(["0.01", 0.01, 0.02, "0.00001"]),
    price: (rng) => (op.endsWith("/sim/price") ? rng.pick(["60000", 61_000, 3000]) : rng.pick([30_000, "59000", 61_000, 2500])),
    amount: (rng) => rng.pick(["10", 5, "0.5", "100"]),
    initialBalance: (rng) => rng.pick(["1000", 500]), maxDrawdown: () => 10, dailyDrawdown: () => 5,
    profitShare: () => ({ trader: 20, investor: 80 }),
    dealDeadline: () => now + 30 * 86_400, validUntil: () => now + 86_400, deadline: () => now + 3_600,
    signature: (rng) => rng.pick(signatures), signatureChainId: () => "0x66eee",
    nonce: (rng) => (op.endsWith("/login") ? `${rng.hex(12)}abc` : now * 1000),
    url: (rng) => rng.pick([w.hookUrl, w.hookUrl, "https://hooks.example.invalid/x", "http://169.254.169.254/latest", "ftp://x", "not a url"]),
    "events[]": (rng) => rng.pick(["Paused", "Closed", "ProposalSigned"]),
    lastEventId: () => "0", startDate: () => "2026-01-01", endDate: () => "2036-01-01T10:00:00Z",
  };
}
