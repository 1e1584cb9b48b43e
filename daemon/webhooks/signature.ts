// How a json delivery proves it came from this daemon: Stripe's scheme, which receivers know how to
// check. The timestamp is signed with the body, so a captured delivery replayed later is told apart.
import { createHmac, randomBytes } from "node:crypto";

/** A new signing secret; the HMAC key is its UTF-8 bytes exactly as shown (prefix included). */
export function newSecret(): string {
  return `whsec_${randomBytes(24).toString("hex")}`;
}

/** `t=<unix seconds>,v1=<lowercase hex HMAC-SHA256 of "<t>.<body>">` */
export function signatureHeader(secret: string, body: string, unixSeconds: number): string {
  const v1 = createHmac("sha256", Buffer.from(secret, "utf8")).update(`${unixSeconds}.${body}`, "utf8").digest("hex");
  return `t=${unixSeconds},v1=${v1}`;
}
