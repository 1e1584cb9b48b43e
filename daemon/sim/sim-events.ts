// What happened inside the sim, for the WebSocket's channels: the engine emits these after the
// transaction that caused them commits (a rolled-back order never reaches a subscriber), already in
// the venue's wire shapes (`@nktkas/hyperliquid`'s subscription types are the reference), so a
// channel only picks the events of its user or coin and forwards them.
//
// The engine side (orders, fills, funding, liquidations) and the WebSocket side (channels) are built
// separately; this file is the whole contract between them.

/** One fill as `userFills` and `userEvents` carry it (WsUserFills.fills[i]). */
export type WireFill = Record<string, unknown> & { coin: string; oid: number; tid: number; time: number };

/** One order status change as `orderUpdates` carries it ({order, status, statusTimestamp}). */
export type WireOrderUpdate = Record<string, unknown> & { status: string; statusTimestamp: number };

/** One public trade as `trades` carries it (users: [buyer, seller]). */
export type WireTrade = Record<string, unknown> & { coin: string; side: "A" | "B"; px: string; sz: string; time: number; tid: number };

export type SimEvent =
  | { kind: "fills"; user: string; fills: WireFill[] }
  | { kind: "orderUpdates"; user: string; updates: WireOrderUpdate[] }
  | { kind: "trades"; coin: string; trades: WireTrade[] }
  /** A coin's book (resting orders or mark) changed; l2Book and bbo recompute it. */
  | { kind: "book"; coin: string }
  /** userEvents' non-fill payloads: {funding: ...}, {liquidation: ...}, {nonUserCancel: [...]}. */
  | { kind: "userEvent"; user: string; event: Record<string, unknown> }
  | { kind: "notification"; user: string; notification: string };

export type SimEventListener = (event: SimEvent) => void;

/** Synchronous fan-out; a listener that throws is the listener's bug and must not stop the others. */
export class SimEvents {
  private readonly listeners = new Set<SimEventListener>();

  /** `report` hears a listener's failure (the sim's logger); the engine's commit already happened. */
  constructor(private readonly report: (err: unknown) => void) {}

  on(listener: SimEventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(event: SimEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (err) {
        this.report(err);
      }
    }
  }
}
