// What every view shares: who is signed in, what the daemon runs on (from /healthz), the error and
// notice banners, and `act`, which runs a user action and shows any failure's message.
import { ApiError } from "./api.js";
import { byId } from "./dom.js";
import type { LiveEvent } from "./events.js";

export interface DaemonInfo {
  exchange: { kind: string; isTestnet: boolean };
  chain: { kind: string; chainId: number; rpcUrl: string };
  /** The embedded sim's API controls; null (or absent, from an older daemon) when there are none. */
  sim?: { controls: "open" | "operator" | "off" } | null;
}

export interface App {
  address: string | null;
  info: DaemonInfo;
  /** Re-renders the current view (after an action changed something). */
  refresh(): void;
  /** Live events of the signed-in user's vaults; returns the unsubscribe. */
  onEvent(listener: (e: LiveEvent) => void): () => void;
}

export function showError(e: unknown): void {
  const el = byId("error");
  const msg = e instanceof ApiError ? `${e.message} (${e.code})` : e instanceof Error ? e.message : String(e);
  el.textContent = msg;
  el.hidden = false;
  el.scrollIntoView({ block: "nearest" });
}

export function clearError(): void {
  byId("error").hidden = true;
}

export function notice(text: string): void {
  const el = byId("notice");
  el.textContent = text;
  el.hidden = false;
}

/** Runs a user action: the button is disabled meanwhile, failures are shown, success clears them. */
export async function act(button: HTMLButtonElement | null, fn: () => Promise<void>): Promise<void> {
  if (button) button.disabled = true;
  clearError();
  try {
    await fn();
  } catch (e) {
    showError(e);
  } finally {
    if (button) button.disabled = false;
  }
}
