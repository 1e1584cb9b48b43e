// The operator's sender of a daemon that shares its database with others: it sends itself while it
// holds the sender's lease (promote), and hands its transactions to the daemon that does otherwise
// (demote). Promotion resumes the nonce and the unsettled journal from the chain and the shared
// journal, as after a restart, and starts serving the others' requests.
import type { Logger } from "pino";
import { createRelayedSender, serveRelayedRequests, type RelayContext } from "./tx-relay.js";
import type { SendRequest, TxSender } from "./tx-sender.js";

export interface SenderSwitch extends TxSender {
  /** This daemon now holds the sender's lease. */
  promote(): Promise<void>;
  /** It no longer does: stop signing at once; what is in flight is settled by the next sender. */
  demote(): Promise<void>;
  sending(): boolean;
}

export function createSenderSwitch(relay: RelayContext, newLocal: () => TxSender, log: Logger): SenderSwitch {
  const relayed = createRelayedSender(relay);
  let local: { sender: TxSender; server: ReturnType<typeof serveRelayedRequests> } | undefined;
  /** Promotions and demotions one at a time, in the order the leases changed. */
  let turn: Promise<void> = Promise.resolve();
  const serially = (fn: () => Promise<void>) => (turn = turn.then(fn, fn));

  const current = (): TxSender => local?.sender ?? relayed;

  return {
    address: relayed.address,
    chain: relayed.chain,
    start: async () => undefined,
    nextNonce: () => current().nextNonce(),
    send: (req: SendRequest) => current().send(req),
    inFlight: () => (local?.sender.inFlight() ?? 0) + relayed.inFlight(),
    async drain(timeoutMs) {
      const a = await relayed.drain(timeoutMs);
      return (await local?.sender.drain(timeoutMs)) ?? a;
    },
    sending: () => local !== undefined,
    promote: () => serially(async () => {
      if (local) return;
      const sender = newLocal();
      await sender.start();
      const server = serveRelayedRequests(relay, sender);
      server.start();
      local = { sender, server };
      log.info({ operator: relayed.address }, "this daemon now sends the operator's transactions");
    }),
    demote: () => serially(async () => {
      if (!local) return;
      const { sender, server } = local;
      local = undefined;
      await server.stop();
      await sender.stop();
      log.info("this daemon no longer sends the operator's transactions; it hands them to the daemon that does");
    }),
    async stop() {
      await serially(async () => {
        if (local) {
          await local.server.stop();
          await local.sender.stop();
          local = undefined;
        }
      });
      await relayed.stop();
    },
  } satisfies SenderSwitch;
}
