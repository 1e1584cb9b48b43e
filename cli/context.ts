// What every command needs, resolved from the global options: daemon URL, output mode, the CLI's
// home folder with its keystore and saved sessions, and API clients.
import type { Command } from "commander";
import { createApiClient, reach, type ApiClient } from "./api-client.js";
import { CliError, EXIT } from "./errors.js";
import { cliHome } from "./home.js";
import { createKeystore, type Keystore } from "./keystore.js";
import type { Io } from "./output.js";
import { createSessionStore, type SessionStore } from "./session-store.js";

export const DEFAULT_URL = "http://127.0.0.1:8420";

export interface CliContext {
  io: Io;
  url: string;
  json: boolean;
  keystore: Keystore;
  sessions: SessionStore;
  /** Unauthenticated client. */
  api(): ApiClient;
  /**
   * Client carrying the saved session for this daemon. Without one, its first request fails: exit 3
   * when the daemon cannot be reached (not signed in is not the problem then), else exit 4.
   */
  authedApi(): ApiClient;
  /** The saved session's token, with the same failures as authedApi's first request. */
  sessionToken(): Promise<string>;
}

/** A daemon URL: http or https with a host. "localhost:8420" parses as a URL of scheme "localhost:", so it is checked. */
export function daemonUrl(given: string, from: string): string {
  // One spelling per daemon: paths are appended to it, and saved sessions are keyed by it.
  const url = given.replace(/\/+$/, "");
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (!parsed || !["http:", "https:"].includes(parsed.protocol) || !parsed.hostname) {
    throw new CliError("USAGE", `${from} "${given}" is not a daemon URL: it needs http:// or https:// and a host`, EXIT.USAGE,
      `e.g. ${DEFAULT_URL}`);
  }
  return url;
}

export function contextFor(cmd: Command, io: Io): CliContext {
  const opts = cmd.optsWithGlobals<{ url?: string; json?: boolean }>();
  const url = opts.url ? daemonUrl(opts.url, "--url") : io.env.TRADEVAULT_URL ? daemonUrl(io.env.TRADEVAULT_URL, "TRADEVAULT_URL") : DEFAULT_URL;
  const home = cliHome(io.env);
  const sessions = createSessionStore(home);
  const notSignedIn = async (): Promise<never> => {
    await reach(url);
    throw new CliError("NOT_SIGNED_IN", `not signed in to ${url}`, EXIT.NOT_SIGNED_IN, "run: npx tradevault login --wallet <name>");
  };
  return {
    io,
    url,
    json: Boolean(opts.json),
    keystore: createKeystore(home),
    sessions,
    api: () => createApiClient(url),
    authedApi() {
      const saved = sessions.get(url);
      return saved ? createApiClient(url, saved.token) : { url, request: notSignedIn, download: notSignedIn };
    },
    async sessionToken() {
      return sessions.get(url)?.token ?? notSignedIn();
    },
  };
}
