// What the sim streams over its WebSocket: the registry of subscription types (allMids for now; l2Book,
// trades and the user channels of issue 14 go here) and the publisher that pushes allMids after prices move.
import type { EngineCtx } from "./engine/context.js";
import { allMids } from "./info.js";
import type { Channel, SimWsServer, Subscription } from "./ws.js";

function allMidsChannel(ctx: EngineCtx): Channel {
  return {
    // The sim has no builder-deployed dexes: only the first perp dex ("" or absent) exists.
    accepts: (sub: Subscription) => sub.dex === undefined || sub.dex === "",
    snapshot: () => ({ mids: allMids(ctx) }),
  };
}

export function simChannels(ctx: EngineCtx): Map<string, Channel> {
  return new Map([["allMids", allMidsChannel(ctx)]]);
}

/**
 * Publishes allMids once per batch of mark moves (a tick, however many steps, or a setPrice), after the
 * transaction committed, and not at all when the batch left every mid as it was.
 */
export class MidsPublisher {
  private last: string;

  constructor(private readonly ctx: EngineCtx, private readonly ws: SimWsServer) {
    this.last = JSON.stringify(allMids(ctx));
  }

  publish(): void {
    const mids = allMids(this.ctx);
    const text = JSON.stringify(mids);
    if (text === this.last) return;
    this.last = text;
    this.ws.publish("allMids", () => ({ mids }));
  }
}
