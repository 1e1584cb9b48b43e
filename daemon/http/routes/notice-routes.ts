// GET /api/notices: the notices addressed to the caller (a proposal the other party signed, an agent
// key expiring, a stop on the caller's own account that did not fill, a liquidation outside vaults).
import type { UserNotices } from "../../notices/user-notices.js";
import { defineRoute } from "../route.js";
import { pagination } from "../schemas.js";
import * as R from "./event-responses.js";

export function noticeRoutes(notices: Pick<UserNotices, "list">) {
  return [
    defineRoute({
      method: "get", path: "/api/notices", tag: "events", auth: true, query: pagination,
      summary: "Notices addressed to you, newest first (the vault events of your vaults are at /api/vaults/:address/events)",
      response: R.userNotices,
      errors: ["INVALID_INPUT", "UNAUTHENTICATED"],
      handler: async ({ query, user }) => {
        const page = await notices.list(user.address, query);
        // The stored data is what its type's schema describes (written through notifyParty's typed input).
        const rendered = page.notices.map(({ id, type, time, data }) => ({ id, type, time, data })) as R.UserNoticesPage["notices"];
        return { notices: rendered, total: page.total, hasMore: page.hasMore };
      },
    }),
  ];
}
