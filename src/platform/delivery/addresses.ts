/*
 * Which IP addresses an outbound call may not reach unless ALLOW_PRIVATE_TARGETS is set: every
 * range of the IANA special-purpose registries that is not the public internet. Hand-written
 * byte matching rather than net.BlockList, because IPv6 forms that embed an IPv4 address
 * (mapped, compatible, NAT64, 6to4) must be judged by the address they embed.
 */
import net from 'node:net';

type Range = { bytes: number[]; bits: number; label: string };

function range(address: string, bits: number, label: string): Range {
  const bytes = parseIp(address);
  if (!bytes) throw new Error(`bad range ${address}`);
  return { bytes, bits, label };
}

// First match wins: broadcast sits inside 240/4.
const V4: Range[] = [
  range('255.255.255.255', 32, 'broadcast'),
  range('0.0.0.0', 8, 'unspecified'),
  range('10.0.0.0', 8, 'private'),
  range('100.64.0.0', 10, 'shared (carrier-grade NAT)'),
  range('127.0.0.0', 8, 'loopback'),
  range('169.254.0.0', 16, 'link-local'),
  range('172.16.0.0', 12, 'private'),
  range('192.0.0.0', 24, 'reserved'),
  range('192.0.2.0', 24, 'documentation'),
  range('192.168.0.0', 16, 'private'),
  range('198.18.0.0', 15, 'benchmarking'),
  range('198.51.100.0', 24, 'documentation'),
  range('203.0.113.0', 24, 'documentation'),
  range('224.0.0.0', 4, 'multicast'),
  range('240.0.0.0', 4, 'reserved'),
];

const V6: Range[] = [
  range('::', 128, 'unspecified'),
  range('::1', 128, 'loopback'),
  range('64:ff9b:1::', 48, 'NAT64 local-use'),
  range('100::', 64, 'discard'),
  range('2001::', 32, 'Teredo'),
  range('2001:2::', 48, 'benchmarking'),
  range('2001:db8::', 32, 'documentation'),
  range('fc00::', 7, 'unique local (private)'),
  range('fe80::', 10, 'link-local'),
  range('fec0::', 10, 'site-local'),
  range('ff00::', 8, 'multicast'),
];

// IPv6 prefixes whose address carries an IPv4 address, and where: [prefix range, offset of the IPv4 bytes].
const EMBEDDING: [Range, number][] = [
  [range('::ffff:0:0', 96, 'IPv4-mapped'), 12],
  [range('::ffff:0:0:0', 96, 'IPv4-translated'), 12],
  [range('::', 96, 'IPv4-compatible'), 12],
  [range('64:ff9b::', 96, 'NAT64'), 12],
  [range('2002::', 16, '6to4'), 2],
];

function parseV4(text: string): number[] {
  return text.split('.').map(Number);
}

function parseV6(text: string): number[] {
  let head = text;
  let tail: number[] = [];
  const lastColon = text.lastIndexOf(':');
  if (text.includes('.', lastColon)) {
    // A dotted IPv4 tail stands for the last two groups.
    tail = parseV4(text.slice(lastColon + 1));
    head = `${text.slice(0, lastColon + 1)}0:0`;
  }
  const [left = '', right] = head.split('::');
  const groups = (part: string) => (part === '' ? [] : part.split(':').map((g) => parseInt(g, 16)));
  const l = groups(left);
  const r = right === undefined ? [] : groups(right);
  const all = right === undefined ? l : [...l, ...new Array<number>(8 - l.length - r.length).fill(0), ...r];
  const bytes = all.flatMap((g) => [g >> 8, g & 0xff]);
  if (tail.length === 4) bytes.splice(12, 4, ...tail);
  return bytes;
}

/** The address as 4 or 16 bytes, or undefined when it is no IP address. A zone (`%eth0`) is ignored. */
export function parseIp(address: string): number[] | undefined {
  const zone = address.indexOf('%');
  const text = zone === -1 ? address : address.slice(0, zone);
  if (net.isIPv4(text)) return parseV4(text);
  if (net.isIPv6(text)) return parseV6(text);
  return undefined;
}

function matches(bytes: number[], r: Range): boolean {
  if (bytes.length !== r.bytes.length) return false;
  for (let bit = 0; bit < r.bits; bit += 8) {
    const mask = r.bits - bit >= 8 ? 0xff : (0xff << (8 - (r.bits - bit))) & 0xff;
    // Both arrays have r.bits / 8 bytes or more (equal lengths, checked above): the reads are in range.
    if (((bytes[bit / 8] ?? 0) & mask) !== ((r.bytes[bit / 8] ?? 0) & mask)) return false;
  }
  return true;
}

/**
 * Why `address` is not a public internet address (`"loopback"`, `"private"`, ...), or undefined
 * when it is one. Anything that is not an IP address is refused too.
 */
export function forbiddenReason(address: string): string | undefined {
  const bytes = parseIp(address);
  if (!bytes) return 'not an IP address';
  if (bytes.length === 4) return V4.find((r) => matches(bytes, r))?.label;
  const own = V6.find((r) => matches(bytes, r));
  if (own) return own.label;
  for (const [prefix, offset] of EMBEDDING) {
    if (!matches(bytes, prefix)) continue;
    const inner = V4.find((r) => matches(bytes.slice(offset, offset + 4), r));
    return inner ? `${inner.label} (${prefix.label})` : undefined;
  }
  return undefined;
}
