// An event stream lives as long as its session. A logout on this daemon ends the session's streams at
// once (the logout route tells the hub); a logout on another daemon sharing the database, or a session
// that simply expires, is seen here: every few seconds the sessions with a stream open are read from
// the store, in one query, and the streams of those gone are ended.
import type { Logger } from "pino";
import type { EventHub } from "./event-hub.js";

const SLICE = 500;

export function watchStreamSessions(deps: {
  hub: Pick<EventHub, "sessionKeys" | "endSession">;
  liveSessions: (sessionKeys: string[]) => Promise<Set<string>>;
  everyMs: number;
  log: Logger;
}) {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;

  async function check(): Promise<void> {
    const keys = deps.hub.sessionKeys();
    // In slices: an IN list of thousands of streams' keys would pass the store's bound on parameters.
    for (let i = 0; i < keys.length; i += SLICE) {
      const slice = keys.slice(i, i + SLICE);
      const live = await deps.liveSessions(slice);
      for (const key of slice) if (!live.has(key)) deps.hub.endSession(key);
    }
  }

  return {
    check,
    start() {
      timer = setInterval(() => {
        running ??= check()
          .catch((err) => deps.log.warn({ err }, "cannot read the streams' sessions; the next round tries again"))
          .finally(() => (running = undefined));
      }, deps.everyMs);
      timer.unref();
    },
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
