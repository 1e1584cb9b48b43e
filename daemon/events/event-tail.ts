// Stored events to live streams when several daemons write to one database: a daemon hears of its
// own commits at once, never of another's, so every daemon reads the events table after the last id
// it published, in id order (ids are in commit order: the event ids' lock, db/vault-events-repo.ts), and publishes
// what it finds. A local commit or a notification wakes the reader; a poll is the backstop.
export interface EventTailDeps<Row extends { id: number }> {
  /** The largest stored id now (where a fresh tail starts: older events are the backlog's). */
  lastId(): Promise<number>;
  /** Rows with id > `afterId`, oldest first, at most `limit`. */
  after(afterId: number, limit: number): Promise<Row[]>;
  deliver(rows: Row[]): void;
  onError(err: unknown): void;
  pollMs: number;
}

export function createEventTail<Row extends { id: number }>(deps: EventTailDeps<Row>) {
  let last: number | undefined;
  let running: Promise<void> | undefined;
  let again = false;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  async function drain(): Promise<void> {
    last ??= await deps.lastId();
    for (;;) {
      const rows = await deps.after(last, 500);
      if (rows.length === 0) return;
      last = rows[rows.length - 1]!.id;
      deps.deliver(rows);
    }
  }

  function poke(): void {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = drain()
      .catch(deps.onError)
      .finally(() => {
        running = undefined;
        if (again) {
          again = false;
          poke();
        }
      });
  }

  return {
    async start(): Promise<void> {
      last = await deps.lastId();
      timer = setInterval(poke, deps.pollMs);
      timer.unref();
    },
    poke,
    async stop(): Promise<void> {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
