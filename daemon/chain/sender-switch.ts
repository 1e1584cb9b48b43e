// The operator's sender of a daemon that shares its database with others: it sends itself while it
// holds the sender's lease (promote), and hands its transactions to the daemon that does otherwise
// (demote). Each promotion builds a new sender, bound to the lease's epoch: it resumes the nonce and
// the unsettled journal from the chain and the shared journal, as after a restart (never from an
// earlier promotion's memory), and starts serving the others' requests. A sender that finds its
// lease lost while signing is dropped at once; a lease won again (a new epoch) gets a new sender.
import type { Logger } from "pino";
import { senderLeaseKey } from "../db/cluster-repo.js";
import { isSenderFenced, type SenderLease } from "./tx-flight.js";
import { createRelayedSender, serveRelayedRequests, type RelayContext } from "./tx-relay.js";
import type { SendRequest, TxSender } from "./tx-sender.js";

export interface SenderSwitch extends TxSender {
  /**
   * This daemon now sends: under `epoch` of the sender's lease, or, without one, unfenced (a first
   * deployment under the database's lock, or a chain of the daemon's own).
   */
  promote(epoch?: number): Promise<void>;
  /** It no longer does: stop signing at once; what is in flight is settled by the next sender. */
  demote(): Promise<void>;
  /**
   * Sends as the lease says: demotes without it, promotes (again) when it is held under an epoch
   * this daemon does not send under, an unfenced sender included (the deployer's), except on a
   * chain of the daemon's own.
   */
  follow(epoch: number | undefined): Promise<void>;
  sending(): boolean;
  /** The lease's epoch the sender signs under; undefined when relaying or unfenced. */
  epoch(): number | undefined;
}

interface Local {
  sender: TxSender;
  server: ReturnType<typeof serveRelayedRequests>;
  epoch?: number;
}

export interface SwitchOptions {
  /** The chain is this daemon's alone (embedded): an unfenced sender keeps sending whatever the lease. */
  ownChain?: boolean;
}

export function createSenderSwitch(
  relay: RelayContext, newLocal: (lease?: SenderLease) => TxSender, log: Logger, opts: SwitchOptions = {},
): SenderSwitch {
  const relayed = createRelayedSender(relay);
  let local: Local | undefined;
  /** Promotions and demotions one at a time, in the order the leases changed. */
  let turn: Promise<void> = Promise.resolve();
  const serially = (fn: () => Promise<void>) => (turn = turn.then(fn, fn));

  const current = (): TxSender => local?.sender ?? relayed;

  async function retire(l: Local): Promise<void> {
    if (local === l) local = undefined;
    await l.server.stop();
    await l.sender.stop();
  }

  const promote = (epoch?: number) => serially(async () => {
    if (local && local.epoch === epoch) return;
    if (local) await retire(local);
    const lease = epoch === undefined ? undefined : { key: senderLeaseKey(relay.chain), holder: relay.requester, epoch };
    const sender = newLocal(lease);
    await sender.start();
    const server = serveRelayedRequests(relay, sender, lease);
    server.start();
    local = { sender, server, epoch };
    log.info({ operator: relayed.address, epoch }, "this daemon now sends the operator's transactions");
  });

  const demote = () => serially(async () => {
    if (!local) return;
    await retire(local);
    log.info("this daemon no longer sends the operator's transactions; it hands them to the daemon that does");
  });

  return {
    address: relayed.address,
    chain: relayed.chain,
    start: async () => undefined,
    nextNonce: () => current().nextNonce(),
    async send(req: SendRequest) {
      const l = local;
      if (!l) return relayed.send(req);
      try {
        return await l.sender.send(req);
      } catch (e) {
        // Nothing was signed; the caller may try again, and this daemon relays until the lease says otherwise.
        if (isSenderFenced(e)) void serially(async () => (local === l ? retire(l) : undefined));
        throw e;
      }
    },
    inFlight: () => (local?.sender.inFlight() ?? 0) + relayed.inFlight(),
    async drain(timeoutMs) {
      const a = await relayed.drain(timeoutMs);
      return (await local?.sender.drain(timeoutMs)) ?? a;
    },
    sending: () => local !== undefined,
    epoch: () => local?.epoch,
    promote,
    demote,
    follow(epoch) {
      if (epoch === undefined) return local ? demote() : Promise.resolve();
      if (local && (local.epoch === epoch || (local.epoch === undefined && opts.ownChain))) return Promise.resolve();
      return promote(epoch);
    },
    async stop() {
      await serially(async () => {
        if (local) await retire(local);
      });
      await relayed.stop();
    },
  } satisfies SenderSwitch;
}
