// One vault's verification: read the chain's and the exchange's records (and, through the daemon, its
// own), then check every invariant. Records that cannot be read make the outcome "unreadable", with the
// reason, never a guess.
import { checkBreaches, checkSettlement } from "./chain-checks.js";
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

export async function verifyVault(vault: string, sources: VerifySources, nowSeconds: number): Promise<Verification> {
  const mode = sources.daemon ? "daemon" : "public";
  try {
    const [chain, daemon] = await Promise.all([sources.chain(vault), sources.daemon?.(vault)]);
    // From the creation block, or from where the daemon's netting starts if that came first (clocks differ).
    const since = Math.min(chain.terms.createdAt * 1000, (daemon?.nettingFrom ?? Infinity) + 1);
    const exchange = await sources.exchange(chain.terms.exchangeAccount, since);
    const invariants = checkAll(chain, exchange, daemon);
    return { vault, mode, checkedAt: nowSeconds, outcome: invariants.some((i) => i.status === "broken") ? "broken" : "holds", invariants };
  } catch (err) {
    if (!(err instanceof UnreadableError)) throw err;
    return { vault, mode, checkedAt: nowSeconds, outcome: "unreadable", reason: err.message, invariants: [] };
  }
}
