// Session tokens kept per daemon URL in one 0600 file, so `login` once serves later commands.
import { join } from "node:path";
import { readJsonFile, writePrivateFile } from "./home.js";

export interface SavedSession {
  token: string;
  address: string;
  /** The keystore wallet that signed in: later commands sign with it unless told otherwise. */
  wallet?: string;
  savedAt: number;
}

export function createSessionStore(home: string) {
  const path = join(home, "sessions.json");
  const load = () => readJsonFile<Record<string, SavedSession>>(path, {});
  const key = (url: string) => new URL(url).origin;
  return {
    get: (url: string): SavedSession | undefined => load()[key(url)],
    set(url: string, session: SavedSession) {
      writePrivateFile(path, JSON.stringify({ ...load(), [key(url)]: session }, null, 2));
    },
    delete(url: string) {
      const all = load();
      delete all[key(url)];
      writePrivateFile(path, JSON.stringify(all, null, 2));
    },
  };
}

export type SessionStore = ReturnType<typeof createSessionStore>;
