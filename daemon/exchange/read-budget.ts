// The request weight signed-in users' reads may spend: at most so much per user in any minute, and so
// much for all users together, so no user (and no crowd of them) takes the weight the oracle and
// enforcement need. Windows slide (the weight of the last 60 s, entry by entry), like the venue's own
// minute: a burst of a full budget cannot be followed by another at once, as a token bucket allows.
import { AppError } from "../errors.js";

export interface ReadBudget {
  /**
   * Takes `weight` for a read `caller` is about to make, from the caller's minute and from all
   * users' minute, or throws RATE_LIMITED (retryAfter: seconds until it fits) and takes nothing.
   */
  take(caller: string, weight: number): void;
  /** Adds weight a read turned out to cost beyond what it was let through for (a list's items, more pages). */
  charge(caller: string, weight: number): void;
  /** Weight `caller`'s reads spent in the last minute. */
  spent(caller: string): number;
  /** Weight all users' reads spent in the last minute. */
  spentByAll(): number;
}

export interface ReadBudgetOptions {
  /** Weight one user's reads may spend in any minute. */
  perUser: number;
  /** Weight all users' reads together may spend in any minute. */
  allUsers: number;
  clock: () => number;
  windowMs?: number;
}

/** Users whose windows are kept before the empty ones are dropped. */
const PRUNE_ABOVE = 10_000;

/** The weight spent in the last `windowMs`, oldest first. */
class Window {
  private at: number[] = [];
  private weight: number[] = [];
  private head = 0;
  used = 0;

  constructor(private readonly windowMs: number) {}

  /** Forgets what left the window by `now`; true when nothing is left. */
  slide(now: number): boolean {
    while (this.head < this.at.length && this.at[this.head]! <= now - this.windowMs) this.used -= this.weight[this.head++]!;
    if (this.head > 64 && this.head * 2 > this.at.length) {
      this.at = this.at.slice(this.head);
      this.weight = this.weight.slice(this.head);
      this.head = 0;
    }
    return this.head === this.at.length;
  }

  add(now: number, weight: number): void {
    this.at.push(now);
    this.weight.push(weight);
    this.used += weight;
  }

  /**
   * Ms from `now` until `weight` more fits under `limit` (0: it fits now). Heavier than the whole
   * limit, it fits only in an empty window.
   */
  waitFor(now: number, weight: number, limit: number): number {
    const over = this.used + weight - limit;
    if (over <= 0 || this.used === 0) return 0;
    let freed = 0;
    for (let i = this.head; i < this.at.length; i++) {
      freed += this.weight[i]!;
      if (freed >= over || freed === this.used) return this.at[i]! + this.windowMs - now;
    }
    return this.windowMs;
  }
}

export function readBudget(opts: ReadBudgetOptions): ReadBudget {
  const windowMs = opts.windowMs ?? 60_000;
  const { clock } = opts;
  const users = new Map<string, Window>();
  const all = new Window(windowMs);

  const windowOf = (user: string, now: number) => {
    const caller = user.toLowerCase();
    let w = users.get(caller);
    if (!w) {
      if (users.size >= PRUNE_ABOVE) for (const [key, u] of users) if (u.slide(now)) users.delete(key);
      users.set(caller, (w = new Window(windowMs)));
    }
    w.slide(now);
    return w;
  };

  return {
    take(caller, weight) {
      const now = clock();
      const mine = windowOf(caller, now);
      all.slide(now);
      const waitMs = Math.max(mine.waitFor(now, weight, opts.perUser), all.waitFor(now, weight, opts.allUsers));
      if (waitMs > 0) {
        const whose = mine.waitFor(now, weight, opts.perUser) > 0 ? "your reads have" : "all users' reads have";
        throw new AppError("RATE_LIMITED", `${whose} spent their share of the exchange's request budget; try again shortly`, {
          retryAfter: waitMs / 1000, retryable: true,
        });
      }
      mine.add(now, weight);
      all.add(now, weight);
    },
    charge(caller, weight) {
      if (weight <= 0) return;
      const now = clock();
      windowOf(caller, now).add(now, weight);
      all.slide(now);
      all.add(now, weight);
    },
    spent(caller) {
      const w = users.get(caller.toLowerCase());
      if (!w) return 0;
      w.slide(clock());
      return w.used;
    },
    spentByAll() {
      all.slide(clock());
      return all.used;
    },
  };
}
