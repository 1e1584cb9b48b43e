// Calls every operation of the API through the typed fetch and reads a field of each answer with the
// type a frontend expects. It is only typechecked (against types generated from the live document):
// an answer that loses its type, a renamed field or a dropped error code stops it compiling.
import { client, data, use } from "./typed-fetch.mjs";

export async function everyOperation(base: string, token: string, vault: string, orderId: number, proposalId: number) {
  const call = client(base);
  const a = { token };
  const params = { address: vault };

  const health = await call("get", "/healthz", {});
  if (health.ok) {
    const chainId: number = use(health.body.data.chain.chainId); void chainId;
    const controls: "open" | "operator" | "off" | undefined = use(health.body.data.sim?.controls); void controls;
    const degraded: boolean = use(health.body.data.priceStream.degraded); void degraded;
  }
  else { const down: string = use(health.body.error.message); void down; }
  const doc = await call("get", "/api/openapi.json", {});
  if (doc.ok) { const version: string = use(doc.body.info.version); void version; }

  const challenge = data(await call("post", "/api/auth/challenge", { body: { address: "0x0000000000000000000000000000000000000001" } }));
  const message: string = use(challenge.message);
  const login = data(await call("post", "/api/auth/login", { body: { address: "0x0000000000000000000000000000000000000001", signature: message, nonce: challenge.nonce } }));
  const sessionToken: string = use(login.user.sessionToken);
  const session = data(await call("get", "/api/auth/session", a));
  const signedInAs: string | undefined = use(session.user?.address);
  const account = data(await call("get", "/api/account", a));
  const accountValue: string | undefined = use(account.exchange.accountValue);
  const agent = data(await call("get", "/api/agent", { ...a, query: { signatureChainId: "0x66eee" } }));
  const agentNonce: string | undefined = use(agent.approval?.typedData.message.nonce);
  const approved = data(await call("post", "/api/agent/approve", { ...a, body: { nonce: 1, signature: "0x" } }));
  const approvedFlag: boolean = use(approved.approved);

  const trade = await call("post", "/api/trade", { ...a, body: { symbol: "BTC", side: "buy", size: "0.01", vaultAddress: vault } });
  if (!trade.ok && trade.body.error.code === "VAULT_PAUSED") { /* a documented code of this operation */ }
  const placed: number = use(data(trade).orderId);
  const filledAt: number | undefined = use(data(trade).fill?.averagePrice);
  const orders = data(await call("get", "/api/orders", { ...a, query: { vaultAddress: vault } }));
  const restingPrice: number | undefined = use(orders.orders[0]?.price);
  const order = data(await call("get", "/api/orders/{orderId}", { ...a, params: { orderId } }));
  const fillFee: number | undefined = use(order.order.fills[0]?.fee);
  const canceled = data(await call("delete", "/api/orders/{orderId}", { ...a, params: { orderId } }));
  const canceledStatus: "canceled" = use(canceled.status);
  const prices = data(await call("get", "/api/prices", a));
  const btcMid: string | undefined = use(prices.prices.BTC);
  const positions = data(await call("get", "/api/positions", a));
  const liquidation: number | null | undefined = use(positions.positions[0]?.liquidationPrice);
  const closed = data(await call("post", "/api/positions/close", { ...a, body: { symbol: "BTC" } }));
  const closedAt: number = use(closed.timestamp);

  const created = data(await call("post", "/api/proposals", {
    ...a, body: { investor: vault, trader: vault, initialBalance: "10000", maxDrawdown: 10, dailyDrawdown: 5, dealDeadline: 2_000_000_000, profitShare: { trader: 20, investor: 80 } },
  }));
  const warning: string | undefined = use(created.warnings[0]?.code);
  const proposals = data(await call("get", "/api/proposals", { ...a, query: { limit: 10 } }));
  const more: boolean = use(proposals.hasMore);
  const proposal = data(await call("get", "/api/proposals/{id}", { ...a, params: { id: proposalId } }));
  const termsSalt: string = use(proposal.proposal.typedData.message.salt);
  const accepted = data(await call("post", "/api/proposals/{id}/accept", { ...a, params: { id: proposalId }, body: { signature: "0x" } }));
  const vaultAddress: string | null = use(accepted.proposal.vaultAddress);
  const rejected = data(await call("post", "/api/proposals/{id}/reject", { ...a, params: { id: proposalId } }));
  const rejectedBy: string | null = use(rejected.proposal.rejectedBy);

  const vaults = data(await call("get", "/api/vaults", a));
  const share: number | undefined = use(vaults.vaults[0]?.profitShare.trader);
  const detail = data(await call("get", "/api/vaults/{address}", { ...a, params }));
  const drawdown: number = use(detail.vault.currentDrawdown);
  const peak: string = use(detail.vault.peakBalance);
  const trades = data(await call("get", "/api/vaults/{address}/trades", { ...a, params, query: { limit: 10, startDate: "2026-01-01" } }));
  const pnl: number | undefined = use(trades.trades[0]?.pnl);
  const perf = data(await call("get", "/api/vaults/{address}/performance", { ...a, params }));
  const annual: number | null = use(perf.performance.annualizedReturnPct);
  const fees: string = use(perf.performance.feesPaid);
  const verified = data(await call("get", "/api/vaults/{address}/verify", { ...a, params }));
  const outcome: "holds" | "broken" | "unreadable" = use(verified.verification.outcome);
  const firstBreak: string | undefined = use(verified.verification.invariants[0]?.break?.expected);
  const lastCheck = data(await call("get", "/api/vaults/{address}/verification", { ...a, params }));
  const checkedAt: number | undefined = use(lastCheck.verification?.checkedAt);
  const events = data(await call("get", "/api/vaults/{address}/events", { ...a, params, query: { offset: 0 } }));
  const first = events.events[0];
  if (first?.type === "BalanceUpdated") { const balance: string = use(first.data.balance); void balance; }
  if (first?.type === "Paused") { const daily: boolean = use(first.data.dailyDrawdown); void daily; }
  const close = data(await call("post", "/api/vaults/{address}/close", { ...a, params }));
  const profit: number = use(close.vault.profit);
  const unpaused = data(await call("post", "/api/vaults/{address}/unpause", { ...a, params }));
  const paused: boolean = use(unpaused.vault.paused);
  const withdrawn = data(await call("post", "/api/vaults/{address}/withdraw", { ...a, params }));
  const amount: string = use(withdrawn.amount);
  const prepared = data(await call("post", "/api/vaults/{address}/fund/prepare", { ...a, params, body: { amount: "500" } }));
  const permitValue: string = use(prepared.typedData.message.value);
  const funded = data(await call("post", "/api/vaults/{address}/fund", { ...a, params, body: { amount: "500", deadline: prepared.deadline, signature: "0x" } }));
  const fundTx: string = use(funded.txHash);

  const hook = data(await call("post", "/api/webhooks", { ...a, body: { url: "https://hooks.example/x", format: "slack", events: ["Paused"], vaults: [vault] } }));
  const hookSecret: string = use(hook.webhook.secret);
  const hooks = data(await call("get", "/api/webhooks", a));
  const hookEnabled: boolean | undefined = use(hooks.webhooks[0]?.enabled);
  const hookId = { params: { id: hook.webhook.id } };
  const tried = data(await call("post", "/api/webhooks/{id}/test", { ...a, ...hookId }));
  const triedStatus: number | null = use(tried.result.statusCode);
  const sent = data(await call("get", "/api/webhooks/{id}/deliveries", { ...a, ...hookId, query: { limit: 5 } }));
  const sentStatus: "pending" | "delivered" | "failed" | undefined = use(sent.deliveries[0]?.status);
  const unhooked: Record<string, never> = use(data(await call("delete", "/api/webhooks/{id}", { ...a, ...hookId })));

  const credited = data(await call("post", "/api/sim/faucet", { ...a, body: { amount: "100" } }));
  const usdc: string = use(credited.usdc);
  const leftToday: string = use(credited.leftToday);
  const move = await call("post", "/api/sim/price", { ...a, body: { symbol: "BTC", price: "60000" } });
  if (!move.ok && move.body.error.code === "FORBIDDEN") { /* --sim-controls operator without the token */ }
  const filled: number[] = use(data(move).filledOids);
  const adl = await call("post", "/api/sim/adl", { ...a, body: { symbol: "BTC" } });
  if (!adl.ok && adl.body.error.code === "INVALID_INPUT") { /* no BTC position to deleverage */ }
  const deleveraged: string | undefined = adl.ok ? use(data(adl).position) : undefined;
  const notices = data(await call("get", "/api/notices", { ...a, query: { limit: 10 } }));
  const noticeType: string | undefined = use(notices.notices[0]?.type);

  const ticket = data(await call("post", "/api/events/ticket", a));
  const expiresAt: number = use(ticket.expiresAt);
  const stream = await call("get", "/api/events", { query: { ticket: ticket.ticket, lastEventId: 0 } });
  if (stream.ok) { const text: string = use(stream.body); void text; }
  else if (stream.body.error.code === "UNAUTHENTICATED") { /* a spent ticket */ }
  const out = await call("post", "/api/auth/logout", a);
  const loggedOut: Record<string, never> = use(data(out));

  return [sessionToken, accountValue, agentNonce, approvedFlag, placed, restingPrice, fillFee, canceledStatus, liquidation, closedAt,
    warning, more, termsSalt, vaultAddress, rejectedBy, share, drawdown, peak, pnl, annual, fees, profit, paused, amount, permitValue, fundTx,
    expiresAt, loggedOut, usdc, leftToday, filled, deleveraged, noticeType, signedInAs, filledAt, hookSecret, hookEnabled, triedStatus, sentStatus, unhooked];
}
