// A durable SQLite commit without blocking the event loop on the disk. In WAL mode, synchronous = FULL
// differs from NORMAL only in that each commit syncs the WAL before returning: SQLite does it inside
// COMMIT, on the event loop, for the whole of the disk's flush (a sign-in's commit held the loop for
// a millisecond and more: bench login). The store commits at NORMAL and syncs the WAL here, on
// libuv's thread pool, before the unit of work returns. fdatasync flushes the file whichever
// descriptor wrote it, so our own descriptor of the -wal file serves. Checkpoints keep their own
// syncs (SQLite syncs the WAL before one and the database after, at NORMAL too).
import { open, type FileHandle } from "node:fs/promises";

export interface WalSyncer {
  /** Flushes everything committed so far to disk. */
  sync(): Promise<void>;
  /** Syncs completed so far. */
  readonly count: number;
  close(): Promise<void>;
}

export function walSyncer(databasePath: string): WalSyncer {
  const memory = databasePath === ":memory:" || databasePath === "";
  let handle: Promise<FileHandle | undefined> | undefined;
  let count = 0;
  // The WAL exists from the first write on, and SQLite keeps it (truncated, never replaced) while
  // the connection is open; it is opened on the first sync.
  const wal = () => (handle ??= open(`${databasePath}-wal`, "r+").catch((err: NodeJS.ErrnoException) => {
    handle = undefined; // nothing written yet: nothing to sync, and the next sync looks again
    if (err.code === "ENOENT") return undefined;
    throw err;
  }));
  return {
    async sync() {
      if (!memory) await (await wal())?.datasync();
      count++;
    },
    get count() {
      return count;
    },
    async close() {
      const h = await handle?.catch(() => undefined);
      handle = undefined;
      await h?.close();
    },
  };
}
