// The user channels: orderUpdates, userFills (whose first message is the user's recent fills with
// isSnapshot: true, read through the /info userFills handler), userEvents (data on the channel "user")
// and notification. Their live data comes from the engine's events (sim-events.ts), matched by user.
import type { EngineCtx } from "./engine/context.js";
import { handleInfo } from "./info.js";
import type { SimEvent } from "./sim-events.js";
import type { Channel, Subscription } from "./ws.js";

const ADDRESS = /^0[xX][0-9a-fA-F]{40}$/;

/** The user a subscription follows, lowercase (the venue's addresses are case-insensitive). */
export function subUser(sub: Subscription): string {
  return (sub.user as string).toLowerCase();
}

function userChannel(extra: Partial<Channel> = {}): Channel {
  return { accepts: (sub) => typeof sub.user === "string" && ADDRESS.test(sub.user), user: subUser, ...extra };
}

export function userChannels(ctx: EngineCtx): [string, Channel][] {
  return [
    ["orderUpdates", userChannel()],
    ["userFills", userChannel({
      snapshot: (sub) => ({ isSnapshot: true, user: subUser(sub), fills: handleInfo(ctx, { type: "userFills", user: subUser(sub) }) }),
    })],
    ["userEvents", userChannel({ channel: "user" })],
    ["notification", userChannel()],
  ];
}

/** The subscription type and data an engine event becomes, for the subscribers of `user`; undefined for market events. */
export function userMessages(event: SimEvent): { user: string; type: string; data: unknown }[] {
  switch (event.kind) {
    case "fills":
      return [
        { user: event.user, type: "userFills", data: { user: event.user, fills: event.fills } },
        { user: event.user, type: "userEvents", data: { fills: event.fills } },
      ];
    case "orderUpdates":
      return [{ user: event.user, type: "orderUpdates", data: event.updates }];
    case "userEvent":
      return [{ user: event.user, type: "userEvents", data: event.event }];
    case "notification":
      return [{ user: event.user, type: "notification", data: { notification: event.notification } }];
    default:
      return [];
  }
}
