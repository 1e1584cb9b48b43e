// parseLog (the topic-indexed replacement for ethers' Interface.parseLog) agrees with ethers on every
// event of our contracts, and refuses what is not one of the interface's events.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { Interface, Wallet, type ParamType } from "ethers";
import { loadArtifact } from "../../daemon/chain/artifacts.js";
import { parseLog } from "../../daemon/chain/decode.js";

const sample = (param: ParamType): unknown => {
  const type = param.type;
  if (param.baseType === "tuple") return param.components!.map(sample);
  if (type === "address") return Wallet.createRandom().address;
  if (type === "bool") return true;
  if (type.startsWith("uint")) return 200n; // fits every width from uint8 up
  if (type.startsWith("int")) return -42n;
  if (type === "bytes32") return `0x${"ab".repeat(32)}`;
  if (type === "string") return "text";
  if (type === "bytes") return "0x1234";
  throw new Error(`no sample for ${type}`);
};

test("every event of TradingVault and VaultFactory decodes as ethers decodes it", () => {
  let seen = 0;
  for (const name of ["TradingVault", "VaultFactory"] as const) {
    const iface = new Interface(loadArtifact(name).abi);
    iface.forEachEvent((event) => {
      const values = event.inputs.map(sample);
      const log = iface.encodeEventLog(event, values);
      const ours = parseLog(iface, log)!;
      const theirs = iface.parseLog(log)!;
      assert.ok(ours, event.name);
      assert.is(ours.name, theirs.name);
      assert.is(ours.topic, theirs.topic);
      assert.equal(ours.args.toArray(true), theirs.args.toArray(true), event.name);
      seen += 1;
    });
  }
  assert.is(seen, 9, "every event of both contracts");
});

test("a log of another event, or one whose data does not fit, is null", () => {
  const iface = new Interface(["event Paused(address indexed vault, uint8 reason)"]);
  const other = new Interface(["event Moved(uint256 amount)"]);
  assert.is(parseLog(iface, other.encodeEventLog("Moved", [5n])), null);
  assert.is(parseLog(iface, { topics: [], data: "0x" }), null);
  const paused = iface.encodeEventLog("Paused", [Wallet.createRandom().address, 1n]);
  assert.is(parseLog(iface, { ...paused, data: "0x12" }), null, "truncated data");
  assert.is(parseLog(iface, paused)!.args.reason, 1n);
});

test.run();
