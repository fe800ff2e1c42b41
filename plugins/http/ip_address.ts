/**
 * IP addresses `fetch_url` will not reach by default: loopback, private, link-local,
 * unspecified and other non-public ranges, IPv4 and IPv6 (IPv4-mapped ones included).
 *
 * @module
 */

function parseIpv4(text: string): number[] | undefined {
  const parts = text.split(".");
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p))) return undefined;
  const bytes = parts.map(Number);
  return bytes.every((b) => b <= 255) ? bytes : undefined;
}

/** The 8 16-bit groups of an IPv6 address (brackets allowed), or `undefined`. */
function parseIpv6(text: string): number[] | undefined {
  let body = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text;
  body = body.replace(/%.*$/, ""); // zone id
  if (!body.includes(":")) return undefined;
  let tail: number[] = [];
  const lastColon = body.lastIndexOf(":");
  const v4 = parseIpv4(body.slice(lastColon + 1));
  if (v4) {
    tail = [(v4[0] << 8) | v4[1], (v4[2] << 8) | v4[3]];
    body = body.slice(0, lastColon + 1) + "0"; // placeholder group, dropped below
  }
  const halves = body.split("::");
  if (halves.length > 2) return undefined;
  const groups = (half: string) => (half === "" ? [] : half.split(":"));
  const parse = (list: string[]) =>
    list.map((g) => (/^[0-9a-f]{1,4}$/i.test(g) ? parseInt(g, 16) : NaN));
  let head = parse(groups(halves[0]));
  let rest = halves.length === 2 ? parse(groups(halves[1])) : [];
  if (v4) {
    if (halves.length === 2) rest = rest.slice(0, -1);
    else head = head.slice(0, -1);
  }
  const fill = 8 - head.length - rest.length - tail.length;
  if (halves.length === 1 ? fill !== 0 : fill < 0) return undefined;
  const all = [...head, ...new Array(fill).fill(0), ...rest, ...tail];
  return all.length === 8 && all.every((g) => Number.isInteger(g)) ? all : undefined;
}

function ipv4Range(b: number[]): string | undefined {
  const [a, c] = [b[0], b[1]];
  if (a === 0) return b.every((x) => x === 0) ? "unspecified" : "reserved (0.0.0.0/8)";
  if (a === 127) return "loopback";
  if (a === 10 || (a === 172 && c >= 16 && c <= 31) || (a === 192 && c === 168)) return "private";
  if (a === 169 && c === 254) return "link-local";
  if (a === 100 && c >= 64 && c <= 127) return "shared (carrier-grade NAT)";
  if (a === 192 && c === 0 && b[2] === 0) return "reserved (192.0.0.0/24)";
  if (a === 198 && (c === 18 || c === 19)) return "reserved (benchmarking)";
  if (
    (a === 192 && c === 0 && b[2] === 2) || (a === 198 && c === 51 && b[2] === 100) ||
    (a === 203 && c === 0 && b[2] === 113)
  ) return "reserved (documentation)";
  if (a >= 224 && a <= 239) return "multicast";
  if (a >= 240) return "reserved (240.0.0.0/4)";
  return undefined;
}

function ipv6Range(g: number[]): string | undefined {
  const zeros = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (g.every((x) => x === 0)) return "unspecified";
  if (zeros(7) && g[7] === 1) return "loopback";
  const embedded = [g[6] >> 8, g[6] & 0xff, g[7] >> 8, g[7] & 0xff];
  if (zeros(5) && g[5] === 0xffff) {
    const inner = ipv4Range(embedded);
    return inner && `IPv4-mapped ${inner}`;
  }
  // SIIT's IPv4-translated form, ::ffff:0:a.b.c.d (RFC 2765).
  if (zeros(4) && g[4] === 0xffff && g[5] === 0) {
    const inner = ipv4Range(embedded);
    return inner && `IPv4-translated ${inner}`;
  }
  if (zeros(6)) return "reserved (IPv4-compatible)";
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) {
    const inner = ipv4Range(embedded);
    return inner && `NAT64 ${inner}`;
  }
  // The local-use NAT64 prefix (RFC 8215): where it is routed, it leads to any IPv4 address.
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1) return "NAT64 (local use)";
  if (g[0] === 0x2001 && g[1] === 0) return "Teredo"; // an IPv4 address inside, obfuscated
  if (g[0] === 0x100 && g[1] === 0 && g[2] === 0 && g[3] === 0) return "reserved (discard)";
  if (g[0] === 0x2002) {
    const inner = ipv4Range([g[1] >> 8, g[1] & 0xff, g[2] >> 8, g[2] & 0xff]);
    return inner && `6to4 ${inner}`;
  }
  if (g[0] === 0x2001 && g[1] === 0x0db8) return "reserved (documentation)";
  if ((g[0] & 0xfe00) === 0xfc00) return "private (unique local)";
  if ((g[0] & 0xffc0) === 0xfe80) return "link-local";
  if ((g[0] & 0xffc0) === 0xfec0) return "private (site-local)";
  if ((g[0] & 0xff00) === 0xff00) return "multicast";
  return undefined;
}

/**
 * Whether a text is an IP address (IPv4 dotted, or IPv6 with or without brackets).
 *
 * @param text A host.
 * @returns `true` for an IP literal.
 */
export function isIpAddress(text: string): boolean {
  return parseIpv4(text) !== undefined || parseIpv6(text) !== undefined;
}

/**
 * Which non-public range an IP address lies in (`"loopback"`, `"private"`,
 * `"link-local"`, `"unspecified"`, `"IPv4-mapped loopback"`, …), or `undefined` for a
 * public address or a text that is not an IP address.
 *
 * @param address An IPv4 or IPv6 address (brackets allowed).
 * @returns The range's name, or `undefined`.
 *
 * @example
 * ```ts
 * import { nonPublicRange } from "@tack/agent/plugins/http";
 * import { equal } from "node:assert/strict";
 *
 * equal(nonPublicRange("127.0.0.1"), "loopback");
 * equal(nonPublicRange("[::ffff:7f00:1]"), "IPv4-mapped loopback");
 * equal(nonPublicRange("fe80::1"), "link-local");
 * equal(nonPublicRange("93.184.215.14"), undefined);
 * ```
 */
export function nonPublicRange(address: string): string | undefined {
  const v4 = parseIpv4(address);
  if (v4) return ipv4Range(v4);
  const v6 = parseIpv6(address);
  return v6 ? ipv6Range(v6) : undefined;
}
