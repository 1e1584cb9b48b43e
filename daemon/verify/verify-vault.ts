// One vault's verification: read the chain's and the exchange's records (and, through the daemon, its
// own), then check every invariant. Records that cannot be read make the outcome "unreadable", with the
// reason, never a guess.
import { checkBreaches, checkSettlement } from "./chain-checks.js";
import { endsHeld, isWhole } from "./chain-records.js";
import { checkFlatPoints, checkReadingsNetted } from "./money-checks.js";
import { checkOrders } from "./order-checks.js";
import { UnreadableError, type ChainRecords, type DaemonRecords, type ExchangeRecords, type InvariantResult, type Verification } from "./records.js";

export interface VerifySources {
  chain(vault: string): Promise<ChainRecords>;
  exchange(account: string, sinceMs: number): Promise<ExchangeRecords>;
  /** The daemon's records: present when the verification runs through the daemon. */
  daemon?(vault: string): Promise<DaemonRecords>;
}

export function checkAll(chain: ChainRecords, exchange: ExchangeRecords, daemon?: DaemonRecords): InvariantResult[] {
  const notChecked = (invariant: InvariantResult["invariant"]): InvariantResult =>
    ({ invariant, status: "not-checked", checked: 0, summary: "needs the daemon's records (run it through the daemon)" });
  return [
    daemon ? checkReadingsNetted(chain, exchange, daemon) : notChecked("readings-netted"),
    checkFlatPoints(chain, exchange, daemon),
    checkBreaches(chain),
    checkSettlement(chain),
    daemon ? checkOrders(exchange, daemon) : notChecked("orders"),
  ];
}

const PRUNED = "the chain's node no longer serves all of the vault's events (it prunes old blocks, as the embedded chain does)";

/**
 * The vault's whole event history: the node's, or, where the node pruned the oldest blocks, the
 * daemon's index of them followed by what the node still serves. Unreadable when neither makes it whole.
 */
function wholeHistory(served: ChainRecords, daemon: DaemonRecords | undefined): { chain: ChainRecords; note?: string } {
  if (isWhole(served)) return { chain: served };
  if (!daemon?.chainEvents) throw new UnreadableError(`${PRUNED}: verify through the daemon, or against an archive RPC`);
  const from = served.events[0]?.block ?? Infinity;
  const chain = { ...served, events: [...daemon.chainEvents.filter((e) => e.block < from), ...served.events] };
  if (!endsHeld(chain)) throw new UnreadableError(`${PRUNED}, and the daemon's index does not fill the gap`);
  const note = `the events before block ${Number.isFinite(from) ? from : "(none served)"} are the daemon's index of them: ${PRUNED}`;
  return { chain, note };
}

/** A source that fails (a node or venue that errs, times out or answers garbage) leaves its records unread. */
async function reading<T>(what: string, p: Promise<T>): Promise<T> {
  try {
    return await p;
  } catch (err) {
    if (err instanceof UnreadableError) throw err;
    throw new UnreadableError(`cannot read ${what}: ${(err as Error).message.split("\n")[0]}`);
  }
}

export async function verifyVault(vault: string, sources: VerifySources, nowSeconds: number): Promise<Verification> {
  const mode = sources.daemon ? "daemon" : "public";
  try {
    const [served, daemon] = await Promise.all([
      reading("the vault's chain events", sources.chain(vault)),
      sources.daemon && reading("the daemon's records", sources.daemon(vault)),
    ]);
    const { chain, note } = wholeHistory(served, daemon);
    // From the creation block, or from where the daemon's netting starts if that came first (clocks differ).
    const since = Math.min(chain.terms.createdAt * 1000, (daemon?.nettingFrom ?? Infinity) + 1);
    const exchange = await reading("the exchange's records", sources.exchange(chain.terms.exchangeAccount, since));
    const invariants = checkAll(chain, exchange, daemon);
    return { vault, mode, checkedAt: nowSeconds, outcome: invariants.some((i) => i.status === "broken") ? "broken" : "holds", ...(note ? { note } : {}), invariants };
  } catch (err) {
    if (!(err instanceof UnreadableError)) throw err;
    return { vault, mode, checkedAt: nowSeconds, outcome: "unreadable", reason: err.message, invariants: [] };
  }
}
