// Every operation of the API, in one list: the router, the OpenAPI document and the contract tests
// all read this list, so a route exists exactly when it is here.
import type { composeServices } from "../compose-services.js";
import type { Health } from "../health.js";
import type { PaperControls } from "../paper/paper-controls.js";
import type { RouteSpec } from "./route.js";
import { accountRoutes } from "./routes/account-routes.js";
import { authRoutes } from "./routes/auth-routes.js";
import { eventsRoute } from "./routes/events-route.js";
import { metaRoutes } from "./routes/meta-routes.js";
import { noticeRoutes } from "./routes/notice-routes.js";
import { performanceRoutes } from "./routes/performance-routes.js";
import { proposalRoutes } from "./routes/proposal-routes.js";
import { simRoutes } from "./routes/sim-routes.js";
import { tradingRoutes } from "./routes/trading-routes.js";
import { vaultRoutes } from "./routes/vault-routes.js";
import { verifyRoutes } from "./routes/verify-routes.js";
import { webhookRoutes } from "./routes/webhook-routes.js";

type Services = ReturnType<typeof composeServices>;

export function apiRoutes(s: Services, meta: { health: () => Promise<Health>; openApi: () => unknown; paper?: PaperControls }): RouteSpec[] {
  return [
    ...metaRoutes({ health: meta.health, openApi: meta.openApi }),
    ...authRoutes(s.auth, s.hub),
    ...accountRoutes({ views: s.views }),
    ...tradingRoutes({ desk: s.desk, agents: s.agents }),
    ...proposalRoutes(s.proposals),
    ...vaultRoutes({ vaults: s.vaults, exports: s.exports }),
    ...performanceRoutes({ performance: s.performance }),
    ...verifyRoutes({ verification: s.verification }),
    ...webhookRoutes(s.webhooks),
    ...noticeRoutes(s.notices),
    ...eventsRoute({ hub: s.hub, auth: s.auth, backlog: s.eventBacklog }),
    // The sim's controls: only with --exchange sim (or a paper exchange).
    ...(meta.paper ? simRoutes(meta.paper) : []),
  ];
}
