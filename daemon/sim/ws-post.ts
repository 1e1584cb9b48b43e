// The WebSocket's `post` method: an /info or /exchange body sent over the socket, answered by the
// same handlers as HTTP, in the venue's envelope ({type:"info", payload:{type, data}} for info,
// {type:"action", payload:<the /exchange answer>} for actions).
import { WireError } from "./wire.js";
import type { PostHandler, PostResponse } from "./ws.js";

export interface ApiHandlers {
  info(body: unknown): unknown;
  exchange(body: unknown): unknown;
}

function infoType(payload: unknown): unknown {
  return typeof payload === "object" && payload !== null ? (payload as { type?: unknown }).type : undefined;
}

export function createPostHandler(api: ApiHandlers): PostHandler {
  return (req): PostResponse | undefined => {
    try {
      if (req.type === "info") return { type: "info", payload: { type: infoType(req.payload), data: api.info(req.payload) } };
      return { type: "action", payload: api.exchange(req.payload) };
    } catch (e) {
      if (e instanceof WireError) return undefined;
      throw e;
    }
  };
}
