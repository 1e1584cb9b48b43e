// Presence on PostgreSQL: a session advisory lock per name, on a connection of its own (a pooled one
// may be closed while idle, and the lock with it). The server releases it when the session ends: at
// once when the process dies and its socket closes; after the server's keepalive probes (set on every
// connection of the daemon, postgres-pool.ts) when the box drops off the network. Leases stay the backstop (a stalled process keeps its session): presence
// only lets the others act sooner on a crash.
import pg from "pg";
import type { Presence } from "./store.js";

/** The advisory locks' first key: tradevault's presence marks, apart from `exclusive`'s one-key locks. */
const PRESENCE_CLASS = 0x74760001;

export function postgresPresence(newClient: () => pg.Client, pool: pg.Pool): Presence & { close(): Promise<void> } {
  let client: pg.Client | undefined;
  let holding: string | undefined;
  let closed = false;

  async function connect(name: string): Promise<boolean> {
    const c = newClient();
    c.on("error", () => undefined);
    c.on("end", () => {
      if (client === c) client = undefined;
    });
    await c.connect();
    try {
      const r = await c.query<{ ok: boolean }>("select pg_try_advisory_lock($1, hashtext($2)) as ok", [PRESENCE_CLASS, name]);
      if (!r.rows[0]!.ok || closed) {
        await c.end();
        return false;
      }
    } catch (err) {
      await c.end().catch(() => undefined);
      throw err;
    }
    client = c;
    holding = name;
    return true;
  }

  return {
    async hold(name) {
      if (client && holding === name) return true;
      if (client) await client.end().catch(() => undefined);
      client = undefined;
      return connect(name);
    },
    async held(names) {
      if (names.length === 0) return new Set();
      const r = await pool.query<{ name: string }>(
        `select n as name from unnest($2::text[]) as n where exists (
           select 1 from pg_locks l
           where l.locktype = 'advisory' and l.granted and l.objsubid = 2
             and l.database = (select oid from pg_database where datname = current_database())
             and l.classid = $1::int8::oid and l.objid = (hashtext(n)::int8 & 4294967295)::oid)`,
        [PRESENCE_CLASS, names],
      );
      return new Set(r.rows.map((x) => x.name));
    },
    async close() {
      closed = true;
      await client?.end().catch(() => undefined);
      client = undefined;
    },
  };
}
