// The users' read budgets: at most so much weight per user in any minute, and so much for all users
// together; windows slide entry by entry; a refusal takes nothing and says when the read would fit.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { readBudget } from "../../daemon/exchange/read-budget.js";
import { isAppError, type AppError } from "../../daemon/errors.js";

const A = "0x" + "a".repeat(40);
const B = "0x" + "b".repeat(40);
const C = "0x" + "c".repeat(40);

function rig(perUser = 120, allUsers = 300) {
  let now = 1_000_000;
  const budget = readBudget({ perUser, allUsers, clock: () => now });
  return { budget, advance: (ms: number) => void (now += ms) };
}

/** The RATE_LIMITED `fn` throws (it must throw one). */
function refusal(fn: () => void): AppError {
  try {
    fn();
  } catch (err) {
    if (isAppError(err) && err.code === "RATE_LIMITED") return err;
    throw err;
  }
  throw new Error("expected RATE_LIMITED");
}

test("one user: reads fit until the minute's weight is spent; a refusal takes nothing and says when one fits", () => {
  const { budget, advance } = rig();
  for (let i = 0; i < 6; i++) (budget.take(A, 20), advance(1_000)); // 120 at t = 0..5 s
  const refused = refusal(() => budget.take(A, 2));
  assert.is(refused.status, 429);
  assert.is(refused.retryAfter, 54, "the first 20 leaves the window at t = 60 s; now is t = 6 s");
  assert.is(budget.spent(A), 120, "nothing taken by the refusal");
  advance(53_999);
  refusal(() => budget.take(A, 2));
  advance(1);
  budget.take(A, 20);
  assert.is(budget.spent(A), 120);
});

test("the window slides: what was spent a minute ago no longer counts, what was spent since does", () => {
  const { budget, advance } = rig();
  budget.take(A, 100);
  advance(30_000);
  budget.take(A, 20);
  advance(29_000);
  assert.is(refusal(() => budget.take(A, 20)).retryAfter, 1, "the 100 leaves at 60 s");
  advance(1_000);
  budget.take(A, 20);
  budget.take(A, 20);
  budget.take(A, 20);
  budget.take(A, 20);
  budget.take(A, 20);
  assert.is(budget.spent(A), 120);
  assert.is(refusal(() => budget.take(A, 20)).retryAfter, 30, "next to leave: the 20 of t = 30 s, at t = 90 s");
});

test("all users together: the ceiling refuses a user who has room of their own", () => {
  const { budget } = rig(120, 300);
  for (let i = 0; i < 6; i++) (budget.take(A, 20), budget.take(B, 20));
  budget.take(C, 60);
  assert.is(budget.spentByAll(), 300);
  const refused = refusal(() => budget.take(C, 20));
  assert.match(refused.message, /all users/);
  assert.is(budget.spent(C), 60);
  assert.match(refusal(() => budget.take(A, 2)).message, /your reads/, "A is past its own budget first");
});

test("what a read costs beyond its admission is charged to both windows, past the limits if it must be", () => {
  const { budget, advance } = rig(120, 300);
  budget.take(A, 20);
  budget.charge(A, 150); // a verification's later pages
  assert.is(budget.spent(A), 170);
  assert.is(budget.spentByAll(), 170);
  refusal(() => budget.take(A, 2));
  advance(60_000);
  assert.is(budget.spent(A), 0);
  budget.take(A, 2);
});

test("a read heavier than the whole budget fits only an empty window; users are told apart by address, any case", () => {
  const { budget, advance } = rig(10, 300);
  budget.take(A, 20);
  advance(1_000);
  assert.is(refusal(() => budget.take(A.toUpperCase().replace("0X", "0x"), 20)).retryAfter, 59);
  advance(59_000);
  budget.take(A, 20);
  budget.take(B, 20);
});

test.run();
