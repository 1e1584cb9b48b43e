// Traffic a cluster under faults serves the whole time, as its users would make it, each answer kept
// for the history: per daemon a sign-in loop (each login timed), a read loop and an SSE client that
// reconnects from the last id it received; orders under Idempotency-Keys through random daemons, some
// keys sent again to another daemon; vaults proposed and accepted now and then. Every request gives
// up after a while (a stopped daemon answers only once continued); a request that failed promises
// nothing. Randomness comes from the scenario's seeded generator.
import { randomWallet, signTyped, type HttpClient, type Party, type Reply } from "../helpers/daemon.js";
import { followSse } from "../helpers/sse.js";
import { proposalBody, simFaucet, type Proc } from "./cluster-rig.js";
import { tokenHash } from "./fault-recorder.js";
import type { Ack, SignIn, StreamLog } from "./history-checker.js";

export interface TrafficDeps {
  /** The daemons as they are now (a restarted one is a new process on a new port). */
  daemons(): Proc[];
  simUrl: string;
  trader: Party;
  rng: () => number;
  /** Extra vaults to make while the faults go on, and where the new ones' addresses go. */
  extraVaults: number;
  vaults: string[];
}

export interface Traffic {
  acks: Ack[];
  signIns: SignIn[];
  /** Requests that got no answer or a 5xx, by daemon (the report's). */
  failures: number[];
  streams(): StreamLog[];
  /** The highest id each stream has received. */
  streamHighs(): number[];
  /** Ends the requests; the SSE clients stay connected. */
  quiesce(): Promise<void>;
  /** Ends everything. */
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * One request, waited for however long it takes (a stopped daemon answers once woken); undefined when
 * the connection failed (a killed daemon).
 */
async function call(http: HttpClient, method: "GET" | "POST", path: string, body?: unknown, o: { token?: string; headers?: Record<string, string> } = {}): Promise<Reply | undefined> {
  return http.request(method, path, body, o).catch(() => undefined);
}

export function startTraffic(deps: TrafficDeps): Traffic {
  const { rng, trader } = deps;
  const n = deps.daemons().length;
  const acks: Ack[] = [];
  const signIns: SignIn[] = [];
  const failures = new Array<number>(n).fill(0);
  let stopped = false;
  const ok = (r: Reply | undefined, i: number) => {
    if (!r || r.status >= 500) failures[i]!++;
    return r !== undefined && r.status >= 200 && r.status < 300;
  };
  const http = (i: number) => deps.daemons()[i]!.http;
  const pick = () => Math.floor(rng() * n);

  async function signInLoop(i: number) {
    while (!stopped) {
      const wallet = randomWallet();
      const challenge = await call(http(i), "POST", "/api/auth/challenge", { address: wallet.address });
      if (ok(challenge, i)) {
        const signature = await wallet.signMessage(challenge!.body.data.message);
        const startMs = Date.now();
        const login = await call(http(i), "POST", "/api/auth/login", { address: wallet.address, signature, nonce: challenge!.body.data.nonce });
        const good = ok(login, i);
        signIns.push({ daemon: i, startMs, ms: Date.now() - startMs, ok: good });
        if (good) acks.push({ kind: "session", key: tokenHash(login!.body.data.user.sessionToken), daemon: i, atMs: Date.now() });
      }
      await sleep(100 + rng() * 200);
    }
  }

  async function readLoop(i: number) {
    while (!stopped) {
      ok(await call(http(i), "GET", "/api/vaults", undefined, { token: trader.token }), i);
      ok(await call(http(i), "GET", "/healthz"), i);
      await sleep(200 + rng() * 300);
    }
  }

  let orders = 0;
  async function orderOnce(key: string, i: number, price: number) {
    const r = await call(http(i), "POST", "/api/trade", { symbol: "BTC", side: "buy", size: "0.001", price: String(price) }, { token: trader.token, headers: { "Idempotency-Key": key } });
    if (ok(r, i)) acks.push({ kind: "order", key, daemon: i, atMs: Date.now(), detail: String(r!.body.data.orderId) });
  }
  async function orderLoop() {
    while (!stopped) {
      const key = `faults-${++orders}-${Math.floor(rng() * 1e9)}`;
      const price = 30_000 + orders;
      const first = pick();
      // A third of the keys are sent again to another daemon, at once or a moment later (a client's retry).
      const again = rng() < 0.33 ? (first + 1 + Math.floor(rng() * (n - 1))) % n : undefined;
      const delay = rng() * 300;
      await Promise.all([
        orderOnce(key, first, price),
        again === undefined ? undefined : sleep(delay).then(() => orderOnce(key, again, price)),
      ]);
      await sleep(400 + rng() * 600);
    }
  }

  async function vaultLoop() {
    for (let made = 0; made < deps.extraVaults && !stopped; made++) {
      await sleep(3_000 + rng() * 20_000);
      await makeVault(pick()).catch(() => undefined);
    }
  }
  /** One vault through daemon i, every 2xx step acknowledged; a failed step abandons it. */
  async function makeVault(i: number) {
    const investor = randomWallet();
    await simFaucet(deps.simUrl, investor.address, "10000");
    const challenge = await call(http(i), "POST", "/api/auth/challenge", { address: investor.address });
    if (!ok(challenge, i)) return;
    const login = await call(http(i), "POST", "/api/auth/login", { address: investor.address, signature: await investor.signMessage(challenge!.body.data.message), nonce: challenge!.body.data.nonce });
    if (!ok(login, i)) return;
    const inv: Party = { wallet: investor, token: login!.body.data.user.sessionToken, address: investor.address };
    const created = await call(http(i), "POST", "/api/proposals", proposalBody(inv, trader), { token: trader.token });
    if (!ok(created, i)) return;
    const p = created!.body.data.proposal;
    acks.push({ kind: "proposal", key: String(p.id), daemon: i, atMs: Date.now() });
    const first = await call(http(i), "POST", `/api/proposals/${p.id}/accept`, { signature: await signTyped(trader.wallet, p.typedData) }, { token: trader.token });
    if (!ok(first, i)) return;
    const done = await call(http(i), "POST", `/api/proposals/${p.id}/accept`, { signature: await signTyped(investor, p.typedData) }, { token: inv.token });
    if (!ok(done, i)) return;
    const address = done!.body.data.proposal.vaultAddress as string | null;
    if (address) {
      acks.push({ kind: "vault", key: address.toLowerCase(), daemon: i, atMs: Date.now() });
      deps.vaults.push(address);
    }
  }

  // One client per daemon, each reconnecting from the last id it received (followSse).
  const clients = Array.from({ length: n }, (_, i) => ({
    name: `SSE client on daemon ${i}`,
    stream: followSse(() => `${deps.daemons()[i]!.url}/api/events`, trader.token, 0),
  }));
  const received = (c: (typeof clients)[number]) => c.stream.events.map((e) => e.id);

  const requests = [...Array.from({ length: n }, (_, i) => [signInLoop(i), readLoop(i)]).flat(), orderLoop(), vaultLoop()];
  return {
    acks, signIns, failures,
    streams: () => clients.map((c) => ({ name: c.name, from: 0, ids: received(c) })),
    streamHighs: () => clients.map((c) => Math.max(0, ...received(c))),
    async quiesce() {
      stopped = true;
      await Promise.all(requests);
    },
    async stop() {
      stopped = true;
      await Promise.all([...requests, ...clients.map((c) => c.stream.close())]);
      clients.forEach((c, i) => (failures[i]! += c.stream.failures));
    },
  };
}
