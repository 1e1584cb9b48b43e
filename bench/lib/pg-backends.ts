// CPU time of the PostgreSQL server's backends serving one database: the server's share of a
// daemon's work, which the daemon's own CPU figure leaves out. A backend's title names its database
// ("postgres: <user> <database> <client> <state>"); Linux only (0 elsewhere). Backends that exit
// between two readings take their CPU with them, so it is a lower bound; the server's shared
// processes (WAL writer, checkpointer) are not counted.
import { readdirSync, readFileSync } from "node:fs";

const TICKS_PER_S = 100; // USER_HZ on Linux

/** The database a PostgreSQL URL names. */
export const databaseName = (url: string): string => new URL(url).pathname.slice(1);

/** CPU ms (user + system) used so far by the backends connected to `database`. */
export function backendCpuMs(database: string): number {
  let ticks = 0;
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return 0;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const title = readFileSync(`/proc/${entry}/cmdline`, "utf8");
      if (!title.startsWith("postgres: ") || title.split(" ")[2] !== database) continue;
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      ticks += Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15 of stat)
    } catch {
      // the process ended meanwhile
    }
  }
  return (ticks * 1000) / TICKS_PER_S;
}
