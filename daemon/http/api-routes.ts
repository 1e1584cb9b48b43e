// Every operation of the API, in one list: the router, the OpenAPI document and the contract tests
// all read this list, so a route exists exactly when it is here.
import type { AuthService } from "../auth/auth-service.js";
import type { EventHub, HubEvent } from "../events/event-hub.js";
import type { Health } from "../health.js";
import type { UserNotices } from "../notices/user-notices.js";
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

import type { AccountViews } from "../trading/account-views.js";
import type { AgentService } from "../trading/agent-service.js";
import type { OrderDesk } from "../vaults/order-desk.js";
import type { ProposalService } from "../vaults/proposal-service.js";
import type { VaultExports } from "../vaults/vault-exports.js";
import type { VaultPerformanceService } from "../vaults/vault-performance.js";
import type { VaultService } from "../vaults/vault-service.js";
import type { VaultVerificationService } from "../vaults/vault-verification.js";
import type { WebhookService } from "../webhooks/webhook-service.js";

/** The services the API answers from (compose-services.ts builds them). */
export interface ApiServices {
  auth: AuthService;
  /** Live events; a logout ends its session's streams. */
  hub: EventHub;
  views: AccountViews;
  desk: OrderDesk;
  agents: AgentService;
  proposals: ProposalService;
  vaults: VaultService;
  exports: VaultExports;
  performance: VaultPerformanceService;
  verification: VaultVerificationService;
  webhooks: WebhookService;
  notices: Pick<UserNotices, "list">;
  /** An event stream's catch-up: one page of stored events after `afterId`. */
  eventBacklog(user: string, afterId: number): Promise<HubEvent[]>;
}

export function apiRoutes(s: ApiServices, meta: { health: () => Promise<Health>; openApi: () => unknown; paper?: PaperControls }): RouteSpec[] {
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
