// Which IP addresses a webhook may reach. A webhook is a request the daemon makes on a user's
// behalf, so by default it may reach only the public internet: never the daemon's own host, its
// LAN, a cloud metadata service (169.254.169.254, fd00:ec2::254) or anything not unicast.
// Addresses that embed an IPv4 one (IPv4-mapped, IPv4-compatible, NAT64, 6to4) are judged by it.
import { isIPv4, isIPv6 } from "node:net";

/** [first address as a number, prefix length] of each IPv4 range refused. */
const V4_REFUSED: Array<[string, number, string]> = [
  ["0.0.0.0", 8, "unspecified"],
  ["10.0.0.0", 8, "private"],
  ["100.64.0.0", 10, "shared (carrier NAT)"],
  ["127.0.0.0", 8, "loopback"],
  ["169.254.0.0", 16, "link-local (cloud metadata)"],
  ["172.16.0.0", 12, "private"],
  ["192.0.0.0", 24, "IETF protocol assignments"],
  ["192.168.0.0", 16, "private"],
  ["198.18.0.0", 15, "benchmarking"],
  ["224.0.0.0", 4, "multicast"],
  ["240.0.0.0", 4, "reserved"],
];

function v4Number(address: string): number {
  return address.split(".").reduce((n, part) => n * 256 + Number(part), 0);
}

function v4Refusal(address: string): string | undefined {
  const n = v4Number(address);
  for (const [base, bits, why] of V4_REFUSED) {
    const size = 2 ** (32 - bits);
    const start = v4Number(base);
    if (n >= start && n < start + size) return why;
  }
  return undefined;
}

/** The eight 16-bit groups of an IPv6 address (a trailing dotted IPv4 part counts as two). */
function v6Groups(address: string): number[] {
  let text = address.split("%")[0]!.toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const n = v4Number(dotted[1]!);
    text = `${text.slice(0, -dotted[1]!.length)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const [head, tail] = text.split("::") as [string, string | undefined];
  const parse = (s: string) => (s === "" ? [] : s.split(":").map((g) => parseInt(g, 16)));
  const left = parse(head);
  if (tail === undefined) return left;
  const right = parse(tail);
  return [...left, ...new Array(8 - left.length - right.length).fill(0), ...right];
}

function v4From(hi: number, lo: number): string {
  return [hi >> 8, hi & 0xff, lo >> 8, lo & 0xff].join(".");
}

function v6Refusal(address: string): string | undefined {
  const g = v6Groups(address);
  const zeroUpTo = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (zeroUpTo(8)) return "unspecified";
  if (zeroUpTo(7) && g[7] === 1) return "loopback";
  if (zeroUpTo(5) && g[5] === 0xffff) return v4Refusal(v4From(g[6]!, g[7]!)) && `IPv4-mapped ${v4Refusal(v4From(g[6]!, g[7]!))}`;
  if (zeroUpTo(6)) return "IPv4-compatible (deprecated)";
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) {
    const why = v4Refusal(v4From(g[6]!, g[7]!));
    return why && `NAT64 of ${why}`;
  }
  if (g[0] === 0x2002) {
    const why = v4Refusal(v4From(g[1]!, g[2]!));
    return why && `6to4 of ${why}`;
  }
  const first = g[0]!;
  if ((first & 0xfe00) === 0xfc00) return "unique local (private; cloud metadata)";
  if ((first & 0xffc0) === 0xfe80) return "link-local";
  if ((first & 0xffc0) === 0xfec0) return "site-local";
  if ((first & 0xff00) === 0xff00) return "multicast";
  return undefined;
}

/** Why `address` may not be reached without --webhooks-allow-private, or undefined when it may. */
export function refusalOf(address: string): string | undefined {
  if (isIPv4(address)) return v4Refusal(address);
  if (isIPv6(address)) return v6Refusal(address);
  return "not an IP address";
}
