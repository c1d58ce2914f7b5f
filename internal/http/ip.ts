/**
 * IP address matching for trusted-proxy lists: exact addresses and CIDR ranges, IPv4 and IPv6,
 * with IPv4-mapped IPv6 (::ffff:127.0.0.1) treated as the IPv4 address it carries.
 */

interface Parsed {
  version: 4 | 6;
  value: bigint;
}

function parseV4(s: string): bigint | undefined {
  const parts = s.split(".");
  if (parts.length !== 4) return undefined;
  let value = 0n;
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p) || Number(p) > 255) return undefined;
    value = (value << 8n) | BigInt(p);
  }
  return value;
}

function parseV6(s: string): bigint | undefined {
  const halves = s.split("::");
  if (halves.length > 2) return undefined;
  const groups = (h: string) => (h === "" ? [] : h.split(":"));
  const head = groups(halves[0]!);
  const tail = halves.length === 2 ? groups(halves[1]!) : [];
  // A dotted IPv4 tail (::ffff:1.2.3.4) stands for two groups.
  const last = (halves.length === 2 ? tail : head).at(-1);
  let v4tail: bigint | undefined;
  if (last?.includes(".")) {
    v4tail = parseV4(last);
    if (v4tail === undefined) return undefined;
    (halves.length === 2 ? tail : head).pop();
  }
  const width = 8 - (v4tail === undefined ? 0 : 2);
  const missing = width - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  let value = 0n;
  for (const g of [...head, ...Array(missing).fill("0"), ...tail]) {
    if (!/^[0-9a-f]{1,4}$/i.test(g)) return undefined;
    value = (value << 16n) | BigInt(parseInt(g, 16));
  }
  return v4tail === undefined ? value : (value << 32n) | v4tail;
}

export function parseIp(input: string): Parsed | undefined {
  const s = input.trim().replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  const v4 = parseV4(s);
  if (v4 !== undefined) return { version: 4, value: v4 };
  const v6 = parseV6(s);
  if (v6 === undefined) return undefined;
  if (v6 >> 32n === 0xffffn) return { version: 4, value: v6 & 0xffffffffn };
  return { version: 6, value: v6 };
}

/** Addresses whose answer a matcher remembers (then starts over). */
const SEEN_PEERS = 1_024;

/** A predicate for "is this address in the list", built once from addresses and CIDRs. */
export function ipMatcher(list: readonly string[]): (addr: string) => boolean {
  const ranges = list.map((entry) => {
    const [addr, bits] = entry.split("/");
    const ip = parseIp(addr ?? "");
    const width = ip?.version === 4 ? 32 : 128;
    const prefix = bits === undefined ? width : Number(bits);
    if (
      !ip || !Number.isInteger(prefix) || prefix < 0 || prefix > width ||
      (bits !== undefined && !/^\d+$/.test(bits))
    ) {
      throw new Error(`not an IP address or CIDR range: ${JSON.stringify(entry)}`);
    }
    const shift = BigInt(width - prefix);
    return { version: ip.version, shift, base: ip.value >> shift };
  });
  // Asked for every request's peer: no list needs no parse, and peers repeat (keep-alive, local agents).
  if (ranges.length === 0) return () => false;
  const seen = new Map<string, boolean>();
  return (addr) => {
    let known = seen.get(addr);
    if (known === undefined) {
      const ip = parseIp(addr);
      known = !!ip && ranges.some((r) => r.version === ip.version && ip.value >> r.shift === r.base);
      if (seen.size >= SEEN_PEERS) seen.clear();
      seen.set(addr, known);
    }
    return known;
  };
}
