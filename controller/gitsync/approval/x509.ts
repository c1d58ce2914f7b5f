/**
 * Just enough X.509 to issue the webhook's own certificates in process (no openssl, no dependency): a
 * self-signed CA and serving certificates it signs, ECDSA P-256 with SHA-256, DER-encoded here and signed
 * with node:crypto. Reading certificates back uses node:crypto's X509Certificate.
 *
 * @example
 * const ca = issueCa({ commonName: "gitsync-webhook-ca", notAfter: inDays(3650) });
 * const leaf = issueServing(ca, { dnsNames: ["gitsync-webhook.gitsync-system.svc"], notAfter: inDays(365) });
 * // leaf.cert and leaf.key are PEM; ca.cert is what a caBundle trusts
 */
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  randomBytes,
  sign,
} from "node:crypto";
import { isIP } from "node:net";

/** A certificate and its private key, both PEM. */
export interface KeyPair {
  cert: string;
  key: string;
}

export interface IssueOptions {
  commonName?: string;
  /** Default: five minutes ago, so a verifier whose clock is a little behind accepts it at once. */
  notBefore?: Date;
  notAfter: Date;
}

export interface ServingOptions extends IssueOptions {
  dnsNames?: string[];
  ipAddresses?: string[];
}

/** A self-signed CA certificate (basicConstraints CA, keyCertSign) with a new key. */
export function issueCa(o: IssueOptions): KeyPair {
  const { privateKey, publicKey } = newKey();
  const spki = publicKey.export({ type: "spki", format: "der" });
  const name = distinguishedName(o.commonName ?? "gitsync-webhook-ca");
  const cert = certificate({
    issuer: name,
    subject: name,
    spki,
    ...validity(o),
    extensions: [
      extension(OID.basicConstraints, true, seq(bool(true))),
      extension(
        OID.keyUsage,
        true,
        keyUsage(KEY_USAGE.digitalSignature | KEY_USAGE.keyCertSign | KEY_USAGE.cRLSign),
      ),
      extension(OID.subjectKeyIdentifier, false, octets(keyId(spki))),
    ],
  }, privateKey);
  return { cert, key: pemKey(privateKey) };
}

/** A serving certificate (serverAuth) for the names and addresses, signed by `ca`, with a new key. */
export function issueServing(ca: KeyPair, o: ServingOptions): KeyPair {
  const names = [
    ...(o.dnsNames ?? []).map((d) => tlv(0x82, Buffer.from(d, "ascii"))),
    ...(o.ipAddresses ?? []).map((ip) => tlv(0x87, ipBytes(ip))),
  ];
  if (!names.length) throw new Error("a serving certificate needs at least one DNS name or IP address");
  const caKey = createPrivateKey(ca.key);
  const caSpki = createPublicSpki(caKey);
  const { privateKey, publicKey } = newKey();
  const spki = publicKey.export({ type: "spki", format: "der" });
  const cert = certificate({
    issuer: issuerOf(ca.cert),
    subject: distinguishedName(o.commonName ?? o.dnsNames?.[0] ?? o.ipAddresses![0]!),
    spki,
    ...validity(o),
    extensions: [
      extension(OID.basicConstraints, true, seq()),
      extension(OID.keyUsage, true, keyUsage(KEY_USAGE.digitalSignature)),
      extension(OID.extKeyUsage, false, seq(oid(OID.serverAuth))),
      extension(OID.subjectAltName, false, seq(...names)),
      extension(OID.authorityKeyIdentifier, false, seq(tlv(0x80, keyId(caSpki)))),
    ],
  }, caKey);
  return { cert, key: pemKey(privateKey) };
}

// --- DER -------------------------------------------------------------------------------------------

const OID = {
  ecPublicKey: "1.2.840.10045.2.1",
  prime256v1: "1.2.840.10045.3.1.7",
  ecdsaWithSha256: "1.2.840.10045.4.3.2",
  commonName: "2.5.4.3",
  basicConstraints: "2.5.29.19",
  keyUsage: "2.5.29.15",
  extKeyUsage: "2.5.29.37",
  subjectAltName: "2.5.29.17",
  subjectKeyIdentifier: "2.5.29.14",
  authorityKeyIdentifier: "2.5.29.35",
  serverAuth: "1.3.6.1.5.5.7.3.1",
};
/** KeyUsage bits, numbered from the most significant bit of the first byte (RFC 5280 4.2.1.3). */
const KEY_USAGE = { digitalSignature: 1 << 0, keyCertSign: 1 << 5, cRLSign: 1 << 6 };

function tlv(tag: number, body: Uint8Array): Buffer {
  const n = body.length;
  const len = n < 0x80
    ? [n]
    : n < 0x100
    ? [0x81, n]
    : n < 0x10000
    ? [0x82, n >> 8, n & 0xff]
    : [0x83, n >> 16, (n >> 8) & 0xff, n & 0xff];
  return Buffer.concat([Buffer.from([tag, ...len]), body]);
}
const seq = (...items: Uint8Array[]) => tlv(0x30, Buffer.concat(items));
const set = (...items: Uint8Array[]) => tlv(0x31, Buffer.concat(items));
const bool = (v: boolean) => tlv(0x01, Buffer.from([v ? 0xff : 0x00]));
const octets = (b: Uint8Array) => tlv(0x04, b);
const bitString = (b: Uint8Array, unused = 0) => tlv(0x03, Buffer.concat([Buffer.from([unused]), b]));
const explicit = (n: number, body: Uint8Array) => tlv(0xa0 + n, body);

function integer(b: Uint8Array): Buffer {
  let i = 0;
  while (i < b.length - 1 && b[i] === 0 && b[i + 1]! < 0x80) i++;
  const v = Buffer.from(b.subarray(i));
  return tlv(0x02, v[0]! >= 0x80 ? Buffer.concat([Buffer.from([0]), v]) : v);
}

function oid(dotted: string): Buffer {
  const [a, b, ...rest] = dotted.split(".").map(Number);
  const bytes = [a! * 40 + b!];
  for (const n of rest) {
    const parts = [n & 0x7f];
    for (let v = n >>> 7; v > 0; v >>>= 7) parts.unshift((v & 0x7f) | 0x80);
    bytes.push(...parts);
  }
  return tlv(0x06, Buffer.from(bytes));
}

/** UTCTime until 2049, GeneralizedTime from 2050 on (RFC 5280 4.1.2.5). */
function time(d: Date): Buffer {
  const iso = d.toISOString().replace(/[-:T]/g, "").slice(0, 14); // YYYYMMDDhhmmss
  return d.getUTCFullYear() < 2050
    ? tlv(0x17, Buffer.from(`${iso.slice(2)}Z`, "ascii"))
    : tlv(0x18, Buffer.from(`${iso}Z`, "ascii"));
}

const distinguishedName = (cn: string) =>
  seq(set(seq(oid(OID.commonName), tlv(0x0c, Buffer.from(cn, "utf8")))));

function extension(id: string, critical: boolean, value: Uint8Array): Buffer {
  return seq(oid(id), ...(critical ? [bool(true)] : []), octets(value));
}

/** KeyUsage as a DER BIT STRING with the trailing zero bits counted as unused. */
function keyUsage(bits: number): Buffer {
  let byte = 0;
  for (let i = 0; i < 8; i++) if (bits & (1 << i)) byte |= 0x80 >> i;
  let unused = 0;
  while (unused < 7 && !(byte & (1 << unused))) unused++;
  return bitString(Buffer.from([byte]), unused);
}

function ipBytes(ip: string): Buffer {
  if (isIP(ip) === 4) return Buffer.from(ip.split(".").map(Number));
  if (isIP(ip) === 6) {
    const [head, tail] = ip.split("::") as [string, string | undefined];
    const part = (s: string | undefined) => (s ? s.split(":") : []);
    const groups = tail === undefined
      ? part(head)
      : [...part(head), ...Array(8 - part(head).length - part(tail).length).fill("0"), ...part(tail)];
    return Buffer.concat(groups.map((g) => Buffer.from(g.padStart(4, "0"), "hex")));
  }
  throw new Error(`"${ip}" is not an IP address`);
}

// --- certificates ----------------------------------------------------------------------------------

const SIGNATURE_ALGORITHM = seq(oid(OID.ecdsaWithSha256));

function certificate(
  t: { issuer: Buffer; subject: Buffer; spki: Buffer; notBefore: Date; notAfter: Date; extensions: Buffer[] },
  signer: KeyObject,
): string {
  const serial = randomBytes(16);
  serial[0]! &= 0x7f; // positive
  const tbs = seq(
    explicit(0, integer(Buffer.from([2]))), // v3
    integer(serial),
    SIGNATURE_ALGORITHM,
    t.issuer,
    seq(time(t.notBefore), time(t.notAfter)),
    t.subject,
    t.spki,
    explicit(3, seq(...t.extensions)),
  );
  const signature = sign("sha256", tbs, signer); // DER ECDSA-Sig-Value
  const der = seq(tbs, SIGNATURE_ALGORITHM, bitString(signature));
  return pem("CERTIFICATE", der);
}

function validity(o: IssueOptions) {
  return { notBefore: o.notBefore ?? new Date(Date.now() - 5 * 60_000), notAfter: o.notAfter };
}

function newKey() {
  return generateKeyPairSync("ec", { namedCurve: "prime256v1" });
}

const pemKey = (k: KeyObject) => k.export({ type: "pkcs8", format: "pem" }).toString();

/** The SPKI (DER) of a key pair's public half. */
function createPublicSpki(key: KeyObject): Buffer {
  return createPublicKey(key).export({ type: "spki", format: "der" });
}

/** RFC 5280 4.2.1.2 method 1: SHA-1 of the subjectPublicKey bits (the SPKI's BIT STRING contents). */
function keyId(spki: Buffer): Buffer {
  // SPKI = SEQUENCE { AlgorithmIdentifier, BIT STRING }; for P-256 the key is the last 65 bytes.
  return createHash("sha1").update(spki.subarray(spki.length - 65)).digest();
}

/** The subject Name of a PEM certificate, as DER, to use as the issuer of what it signs. */
function issuerOf(certPem: string): Buffer {
  const der = Buffer.from(certPem.replace(/-----[^-]+-----|\s/g, ""), "base64");
  // Certificate → TBSCertificate → [version, serial, signature, issuer, validity, subject, ...]
  const tbs = children(der)[0]!;
  return children(tbs)[5]!;
}

/** The DER elements inside a constructed element (whole TLVs, header included). */
function children(el: Buffer): Buffer[] {
  const out: Buffer[] = [];
  let { header, length } = readHeader(el, 0);
  let at = header;
  const end = header + length;
  while (at < end) {
    ({ header, length } = readHeader(el, at));
    out.push(el.subarray(at, at + header + length));
    at += header + length;
  }
  return out;
}

function readHeader(b: Buffer, at: number): { header: number; length: number } {
  const first = b[at + 1]!;
  if (first < 0x80) return { header: 2, length: first };
  const n = first & 0x7f;
  let length = 0;
  for (let i = 0; i < n; i++) length = (length << 8) | b[at + 2 + i]!;
  return { header: 2 + n, length };
}

function pem(label: string, der: Buffer): string {
  const b64 = der.toString("base64").replace(/.{1,64}/g, "$&\n");
  return `-----BEGIN ${label}-----\n${b64}-----END ${label}-----\n`;
}
