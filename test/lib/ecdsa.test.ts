// signatureProblem reads any text without throwing, and the signature schema reports a malformed one
// by its shape alone: the ECDSA check never sees it.
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { Wallet, id } from "ethers";
import { signature } from "../../daemon/http/schemas.js";
import { signatureProblem } from "../../daemon/lib/ecdsa.js";

const REAL = Wallet.createRandom().signingKey.sign(id("anything")).serialized;
const MALFORMED = ["", "0", "0x", "xyz", `${REAL}a`, REAL.slice(0, 130), `${REAL}00`, `${REAL.slice(0, 131)}g`, `0X${REAL.slice(2)}`, `${REAL}\n`];

const t = suite("ecdsa");

t("signatureProblem names a malformed signature instead of throwing", () => {
  for (const text of MALFORMED) assert.is(signatureProblem(text), "is not 0x and 65 bytes of hex", JSON.stringify(text));
  assert.is(signatureProblem(REAL), undefined);
});

t("the signature schema: one issue, the shape's, for a malformed signature", () => {
  for (const text of MALFORMED) {
    const r = signature.safeParse(text);
    assert.not.ok(r.success, JSON.stringify(text));
    assert.equal(r.error!.issues.map((i) => i.message), ["must be a 0x-prefixed 65-byte hex signature"], JSON.stringify(text));
  }
  assert.is(signature.parse(REAL), REAL);
});

t.run();
