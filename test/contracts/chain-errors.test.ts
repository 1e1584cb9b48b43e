// Translation of chain failures into AppError: reverts by decoded custom error (wherever ethers put
// the data), transport failures by ethers' code. No chain needed.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { makeError } from "ethers";
import { AppError } from "../../daemon/errors.js";
import { REVERT_CODES, decodeRevert, errorInterface, toAppError } from "../../daemon/chain/chain-errors.js";
import type { Interface } from "ethers";
import { loadHardhat } from "./fixture.js";

let iface: Interface;

test.before(async () => {
  await loadHardhat(); // compiles when the artifacts are missing
  iface = errorInterface();
});
const revert = (data: string, nest = false) =>
  makeError("execution reverted", "CALL_EXCEPTION", nest ? { data: null, info: { error: { data } } } as never : { data } as never);

test("every mapped contract error exists in the compiled ABIs (a rename breaks this)", () => {
  for (const name of Object.keys(REVERT_CODES)) assert.ok(iface.getError(name), `${name} is not in any ABI`);
});

test("reverts become their API code with decoded args", () => {
  let e = toAppError(revert(iface.encodeErrorResult("NothingToWithdraw", [])), "withdraw");
  assert.equal([e.code, e.status, e.retryable], ["NOTHING_TO_WITHDRAW", 409, false]);
  assert.equal(e.details, { revert: "NothingToWithdraw", args: [] });
  e = toAppError(revert(iface.encodeErrorResult("NotRecovered", [3]), true));
  assert.equal([e.code, e.details], ["NOT_RECOVERED", { revert: "NotRecovered", args: ["3"] }]);
  e = toAppError(revert(iface.encodeErrorResult("InvalidTerms", ["salt"])));
  assert.equal([e.code, (e.details as { args: unknown[] }).args], ["INVALID_INPUT", ["salt"]]);
  assert.is(toAppError(revert(iface.encodeErrorResult("NotAuthorized", []))).code, "FORBIDDEN");
  assert.is(toAppError(revert(iface.encodeErrorResult("DealExpired", []))).code, "DEAL_EXPIRED");
  assert.is(toAppError(revert(iface.encodeErrorResult("VaultClosed", []))).code, "VAULT_CLOSED");
  assert.is(toAppError(revert(iface.encodeErrorResult("VaultNotClosed", []))).code, "VAULT_NOT_CLOSED");
});

test("unknown and data-less reverts are INTERNAL, never guessed from the message", () => {
  let e = toAppError(revert("0xdeadbeef"));
  assert.equal([e.code, (e.details as { revert: string }).revert], ["INTERNAL", "Unknown"]);
  e = toAppError(makeError("execution reverted: NothingToWithdraw", "CALL_EXCEPTION", { data: null } as never));
  assert.is(e.code, "INTERNAL");
  assert.is(decodeRevert(new Error("NothingToWithdraw")), undefined);
});

test("transport failures are CHAIN_UNAVAILABLE, retryable when a retry can help", () => {
  for (const code of ["NETWORK_ERROR", "TIMEOUT", "SERVER_ERROR"] as const) {
    const e = toAppError(makeError("down", code));
    assert.equal([e.code, e.retryable], ["CHAIN_UNAVAILABLE", true]);
  }
  const gas = toAppError(makeError("no gas", "INSUFFICIENT_FUNDS", { transaction: {} } as never));
  assert.equal([gas.code, gas.retryable], ["CHAIN_UNAVAILABLE", false]);
  assert.is(toAppError(new Error("boom")).code, "INTERNAL");
  const own = new AppError("VAULT_PAUSED", "paused");
  assert.is(toAppError(own), own);
});

test.run();
