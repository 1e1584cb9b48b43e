// GET /api/events: Server-Sent Events of the caller's vaults. Durable ids (vault_events.id), so a
// client resumes with Last-Event-ID; keep-alive comments; no envelope. The stream subscribes
// before it reads the backlog, so nothing published in between is lost or sent twice.
import { PassThrough } from "node:stream";
import { z } from "zod";
import type { AuthService, AuthUser } from "../../auth/auth-service.js";
import { AppError } from "../../errors.js";
import type { EventHub, HubEvent } from "../../events/event-hub.js";
import { VAULT_EVENT_TYPES } from "../../events/event-types.js";
import { seconds } from "../render.js";
import * as R from "./event-responses.js";
import { defineRawRoute, defineRoute } from "../route.js";
import { integerParam } from "../schemas.js";

export const KEEPALIVE_MS = 15_000;

export function eventsRoute(deps: {
  hub: EventHub;
  auth: Pick<AuthService, "issueTicket" | "redeemTicket">;
  /** One page of stored events after `afterId`, oldest first; empty when caught up. */
  backlog: (user: string, afterId: number) => Promise<HubEvent[]>;
}) {
  const ticketRoute = defineRoute({
    method: "post", path: "/api/events/ticket", tag: "events", auth: true,
    summary: "A single-use ticket (valid 60 s) that opens GET /api/events?ticket=... as you: for EventSource from another site, which can send neither a Bearer header nor the cookie",
    response: R.eventTicket,
    errors: ["UNAUTHENTICATED"],
    handler: async ({ user }) => {
      const t = await deps.auth.issueTicket(user);
      return { ticket: t.ticket, expiresAt: seconds(t.expiresAt)! };
    },
  });
  const streamRoute = defineRawRoute({
    // Authenticated by the session (cookie or Bearer) or by a ticket; a ticket is the credential, so
    // the route itself takes no session (DESIGN section 4) and checks one of the two below.
    method: "get", path: "/api/events", tag: "events", auth: false, ticket: true, raw: true,
    rawResponse: {
      mediaType: "text/event-stream",
      description: "A stream of `id: <n>`, `event: <type>`, `data: <JSON>` messages (data has id, vault, type, time and the event's fields), with keep-alive comments every 15 s; no envelope",
    },
    query: z.object({
      lastEventId: integerParam(z.number().int().min(0)).optional(),
      ticket: z.string().min(1).max(100).optional().meta({ description: "from POST /api/events/ticket; single use" }),
    }).strict(),
    summary: `Server-Sent Events for your vaults (${VAULT_EVENT_TYPES.join(", ")}); resume with Last-Event-ID`,
    errors: ["UNAUTHENTICATED"],
    handler: async ({ ctx, query }) => {
      const session = ctx.state.user as AuthUser | undefined;
      let user: AuthUser;
      if (query.ticket !== undefined) user = await deps.auth.redeemTicket(query.ticket);
      else if (session) user = session;
      else throw (ctx.state.authError as AppError | undefined) ?? new AppError("UNAUTHENTICATED", "not signed in: send the session (cookie or Bearer), or a ticket", {
        next: [{ action: "signIn" }, { action: "takeEventTicket" }],
      });
      const header = Number.parseInt(ctx.get("Last-Event-ID"), 10);
      let lastSent = Number.isFinite(header) ? header : (query.lastEventId ?? 0);
      const stream = new PassThrough();
      const write = (e: HubEvent) => {
        if (e.id <= lastSent) return;
        lastSent = e.id;
        stream.write(`id: ${e.id}\nevent: ${e.type}\ndata: ${JSON.stringify({ id: e.id, vault: e.vault, type: e.type, time: e.time, ...e.data })}\n\n`);
      };
      let buffered: HubEvent[] | undefined = [];
      const unsubscribe = deps.hub.subscribe({
        user: user.address,
        sessionKey: user.sessionKey,
        push: (e) => (buffered ? buffered.push(e) : write(e)),
        end: () => stream.end(),
      });
      const keepAlive = setInterval(() => stream.write(": keep-alive\n\n"), KEEPALIVE_MS);
      const cleanup = () => {
        clearInterval(keepAlive);
        unsubscribe();
      };
      stream.on("close", cleanup);
      ctx.req.on("close", () => stream.end());

      ctx.req.socket.setTimeout(0);
      ctx.req.socket.setNoDelay(true);
      ctx.status = 200;
      ctx.set({ "Content-Type": "text/event-stream; charset=utf-8", "Cache-Control": "no-cache, no-transform", Connection: "keep-alive", "X-Accel-Buffering": "no" });
      ctx.body = stream;
      stream.write(": connected\n\n");

      // The backlog comes in pages: read until caught up, or a long absence would lose the events
      // between the first page's end and the live ones (resuming only ever moves forward).
      for (;;) {
        const page = await deps.backlog(user.address, lastSent);
        if (page.length === 0 || stream.destroyed) break;
        for (const e of page) write(e);
      }
      const pending = buffered;
      buffered = undefined;
      for (const e of pending) write(e);
    },
  });
  return [ticketRoute, streamRoute];
}
