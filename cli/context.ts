// What every command needs, resolved from the global options: daemon URL, output mode, the CLI's
// home folder with its keystore and saved sessions, and API clients.
import type { Command } from "commander";
import { createApiClient, type ApiClient } from "./api-client.js";
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
  /** Client carrying the saved session for this daemon; exit 4 when there is none. */
  authedApi(): ApiClient;
}

export function contextFor(cmd: Command, io: Io): CliContext {
  const opts = cmd.optsWithGlobals<{ url?: string; json?: boolean }>();
  // One spelling per daemon: paths are appended to it, and saved sessions are keyed by it.
  const url = (opts.url || io.env.TRADEVAULT_URL || DEFAULT_URL).replace(/\/+$/, "");
  try {
    new URL(url);
  } catch {
    throw new CliError("USAGE", `--url "${url}" is not a URL`, EXIT.USAGE);
  }
  const home = cliHome(io.env);
  const sessions = createSessionStore(home);
  return {
    io,
    url,
    json: Boolean(opts.json),
    keystore: createKeystore(home),
    sessions,
    api: () => createApiClient(url),
    authedApi() {
      const saved = sessions.get(url);
      if (!saved) {
        throw new CliError("NOT_SIGNED_IN", `not signed in to ${url}`, EXIT.NOT_SIGNED_IN, "run: tradevault login --wallet <name>");
      }
      return createApiClient(url, saved.token);
    },
  };
}
