// The address schema (http/schemas.ts) hands every address on in EIP-55 form, from a kept map when it
// saw the address lately (lib/eip55.ts): the map must never hand one address's checksum to another.
import { getAddress, hexlify, randomBytes } from "ethers";
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { address } from "../../daemon/http/schemas.js";

const t = suite("address schema");
const random = () => hexlify(randomBytes(20));

t("any case in, EIP-55 out, the same on a second look and for every casing", () => {
  const a = random();
  const eip55 = getAddress(a);
  for (const given of [a, a.toUpperCase().replace("0X", "0x"), eip55, a]) assert.is(address.parse(given), eip55);
});

t("thousands of addresses, past what is kept: each still gets its own checksum", () => {
  const all = Array.from({ length: 5_000 }, random);
  for (const a of all) address.parse(a);
  for (const a of [...all.slice(0, 50), ...all.slice(-50)]) assert.is(address.parse(a.toUpperCase().replace("0X", "0x")), getAddress(a));
});

t("not an address: refused before any checksum", () => {
  for (const bad of ["0x1234", "14791697260e4c9a71f18484c9f997b308e59325", `0x${"g".repeat(40)}`]) {
    assert.is(address.safeParse(bad).success, false, bad);
  }
});

t.run();
