// Boot: read what the daemon runs on (/healthz), find the wallet, sign in (EIP-4361 message signed
// with personal_sign, session cookie set by the daemon), then route by the URL's hash.
import type { CurrentSession } from "../../daemon/http/responses.js";
import { act, clearError, showError, type App, type DaemonInfo } from "./app.js";
import { ApiError, get, post } from "./api.js";
import { byId, h, replace } from "./dom.js";
import { openLive, type Live, type LiveEvent } from "./events.js";
import { short } from "./format.js";
import { accountView } from "./views/account.js";
import { alertsView } from "./views/alerts.js";
import { proposalsView } from "./views/proposals.js";
import { simView } from "./views/sim.js";
import { vaultDetailView, vaultListView } from "./views/vaults.js";
import { connect, discoverWallets, onAccountsChanged, personalSign, walletNames } from "./wallet.js";

let live: Live | undefined;
let leave: (() => void) | undefined;
const listeners = new Set<(e: LiveEvent) => void>();

const app: App = {
  address: null,
  info: { exchange: { kind: "unknown", isTestnet: true }, chain: { kind: "unknown", chainId: 0, rpcUrl: "" } },
  refresh: () => void route(),
  onEvent(listener) {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
};

/** Counts routes: a view still loading when the user moved on is dropped, not shown over the newer one. */
let turn = 0;

async function route(): Promise<void> {
  leave?.();
  leave = undefined;
  const mine = ++turn;
  const shown = byId("view");
  if (!app.address) return;
  // Each route draws into a fresh, detached copy of the view, swapped in when it is ready and still
  // wanted: otherwise a slow screen (the account, after sign-in) could land after a quick one the user
  // went on to, and replace it under their fingers.
  const view = shown.cloneNode(false) as HTMLElement;
  // Which route the view shows (tests and scripts wait for it: another screen may hold the same ids).
  view.dataset.route = location.hash;
  const [name, arg] = location.hash.replace(/^#/, "").split("/");
  for (const a of Array.from(document.querySelectorAll("#tabs a"))) {
    a.classList.toggle("active", a.getAttribute("href") === `#${name === "vault" ? "vaults" : name || "account"}`);
  }
  try {
    let cleanup: (() => void) | undefined;
    if (name === "proposals") await proposalsView(app, view);
    else if (name === "vaults") await vaultListView(app, view);
    else if (name === "vault" && arg) cleanup = await vaultDetailView(app, view, arg);
    else if (name === "alerts") await alertsView(app, view);
    else if (name === "sim") await simView(app, view);
    else await accountView(app, view);
    if (mine !== turn) return cleanup?.();
    shown.replaceWith(view);
    leave = cleanup;
  } catch (e) {
    if (mine !== turn) return;
    if (e instanceof ApiError && e.status === 401) return signedOut();
    showError(e);
  }
}

function signedIn(address: string): void {
  app.address = address;
  byId("who").textContent = short(address);
  byId("who").title = address;
  const button = byId<HTMLButtonElement>("connect");
  button.textContent = "Sign out";
  byId("tabs").hidden = false;
  live?.stop();
  live = openLive((state) => byId("network").dataset.live = state);
  live.subscribe((e) => {
    for (const l of listeners) l(e);
  });
  void route();
}

function signedOut(): void {
  app.address = null;
  turn++; // a screen still loading is not shown over this
  live?.stop();
  live = undefined;
  leave?.();
  byId("who").textContent = "";
  byId("connect").textContent = "Connect wallet";
  byId("tabs").hidden = true;
  replace(byId("view"), h("section", { class: "card intro" }, h("h1", {}, "Signed out"), h("p", {}, "Connect your wallet to sign in again.")));
}

async function signIn(): Promise<void> {
  const address = await connect();
  const challenge = await post<{ message: string; nonce: string }>("/api/auth/challenge", { address });
  const signature = await personalSign(address, challenge.message);
  const login = await post<{ user: { address: string } }>("/api/auth/login", { address, signature, nonce: challenge.nonce });
  signedIn(login.user.address);
}

async function boot(): Promise<void> {
  discoverWallets(() => (byId("connect").title = `wallets: ${walletNames().join(", ")}`));
  const health = await fetch("/healthz").then((r) => r.json()).catch(() => undefined) as { data?: DaemonInfo } | undefined;
  if (health?.data) app.info = health.data;
  const net = byId("network");
  net.textContent = app.info.exchange.kind === "sim" ? "paper trading (sim)" : app.info.exchange.isTestnet ? "testnet" : "MAINNET";
  // /api/sim/* exist only on a daemon that embeds the sim (not with --exchange-url).
  byId("sim-tab").hidden = !app.info.sim;
  const button = byId<HTMLButtonElement>("connect");
  button.addEventListener("click", () => act(button, async () => {
    if (app.address) {
      await post("/api/auth/logout");
      return signedOut();
    }
    await signIn();
  }));
  onAccountsChanged((accounts) => {
    if (app.address && accounts[0]?.toLowerCase() !== app.address.toLowerCase()) signedOut();
  });
  window.addEventListener("hashchange", () => {
    clearError();
    byId("notice").hidden = true;
    void route();
  });
  // A session cookie from earlier: resume without asking the wallet again. /api/auth/session answers
  // 200 {user: null} when there is none, so a first visit logs no failed request.
  const { user } = await get<CurrentSession>("/api/auth/session").catch(() => ({ user: null }));
  if (user) signedIn(user.address);
}

void boot();
