// docs/http-api.md's "Build your own frontend" recipes, verbatim: a page on another site (its own origin)
// talking to tradevaultd through a browser wallet (EIP-1193). The contract tests load this file into
// a page served from another origin and run it against a real daemon.
const API = "http://127.0.0.1:8420"; // the daemon (started with --cors-origin <this page's origin>)
let token; // the sessionToken: kept in memory, sent as a Bearer header (the cookie stays on the daemon's site)

/** Calls the API; a failure throws an Error carrying the envelope's code, message and details. */
async function api(method, path, body) {
  const res = await fetch(API + path, {
    method,
    headers: { ...(body && { "Content-Type": "application/json" }), ...(token && { Authorization: `Bearer ${token}` }) },
    body: body && JSON.stringify(body),
  });
  const answer = await res.json();
  if (answer.ok) return answer.data;
  const err = Object.assign(new Error(answer.error.message), answer.error, { status: res.status });
  err.retryAfter = Number(res.headers.get("Retry-After")) || undefined; // 429 and 503 say when to retry
  throw err;
}

/** Sign-in: the challenge names this page's origin (the browser sends Origin), the wallet signs it. */
async function signIn() {
  const [address] = await ethereum.request({ method: "eth_requestAccounts" });
  const challenge = await api("POST", "/api/auth/challenge", { address });
  const hex = "0x" + [...new TextEncoder().encode(challenge.message)].map((b) => b.toString(16).padStart(2, "0")).join("");
  const signature = await ethereum.request({ method: "personal_sign", params: [hex, address] });
  const { user } = await api("POST", "/api/auth/login", { address, signature, nonce: challenge.nonce });
  token = user.sessionToken;
  return { address: user.address, message: challenge.message };
}

/**
 * Live events across sites: EventSource sends neither the cookie nor a header, so it opens the stream
 * with a single-use ticket. Its own reconnect would reuse the spent ticket (401), so on an error the
 * page closes it and opens a new stream with a new ticket, resuming after the last event it saw.
 */
const EVENT_TYPES = ["VaultCreated", "BalanceUpdated", "Paused", "Unpaused", "Closed", "Funded", "Withdrawn", "Fill", "BalanceMismatch", "OrdersCanceled", "Flattened", "AccountModeChanged", "EnforcementFailing", "DeadlineApproaching",
  "StopFailed", "StopFilled", "Liquidated", "Deleveraged", "LimitNear"];
let lastEventId = 0;
async function openEvents(onEvent) {
  const { ticket } = await api("POST", "/api/events/ticket");
  const source = new EventSource(`${API}/api/events?ticket=${encodeURIComponent(ticket)}&lastEventId=${lastEventId}`);
  for (const type of EVENT_TYPES) {
    source.addEventListener(type, (e) => {
      lastEventId = Number(e.lastEventId);
      onEvent(JSON.parse(e.data)); // { id, vault, type, time, ...the event's fields }
    });
  }
  source.onerror = () => {
    source.close();
    setTimeout(() => openEvents(onEvent).catch(console.error), 1000);
  };
  return source;
}

/** Or read the stream with fetch, which can send the Bearer header; resume with Last-Event-ID. */
async function streamWithFetch(onEvent, after = 0) {
  const res = await fetch(`${API}/api/events`, { headers: { Authorization: `Bearer ${token}`, "Last-Event-ID": String(after) } });
  if (!res.ok) throw new Error((await res.json()).error.message);
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return after; // ended (logout, shutdown): call again with this id to resume
    buffer += value;
    for (let end; (end = buffer.indexOf("\n\n")) >= 0; buffer = buffer.slice(end + 2)) {
      const data = buffer.slice(0, end).split("\n").find((line) => line.startsWith("data: "));
      if (!data) continue; // a keep-alive comment
      const event = JSON.parse(data.slice(6));
      after = event.id;
      onEvent(event);
    }
  }
}
