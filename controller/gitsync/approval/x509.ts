/**
 * Issues the webhook's own certificates in process (no openssl): a self-signed CA and serving certificates
 * it signs, ECDSA P-256 with SHA-256 through WebCrypto. The certificates are built by @peculiar/x509 (the
 * passkey stack's certificate library, already in the tree), not by hand-written ASN.1: this is security
 * code, and a maintained encoder is the safer one. It is loaded on first use only (with reflect-metadata,
 * which it needs first), so a manager that never issues a certificate never pays for it: in a Bun-compiled
 * probe, loading took 40-80 ms and 10-12 MB, and each certificate 5-50 ms (the hand-written DER this
 * replaced took about 1 ms), which only the leader pays, once a year per certificate, or `--local-webhook`
 * once at start. Reading certificates back uses node:crypto's X509Certificate.
 *
 * @example
 * const ca = await issueCa({ commonName: "gitsync-webhook-ca", notAfter: inDays(3650) });
 * const leaf = await issueServing(ca, { dnsNames: ["gitsync-webhook.gitsync-system.svc"], notAfter: inDays(365) });
 * // leaf.cert and leaf.key are PEM; ca.cert is what a caBundle trusts
 */
import { randomBytes, webcrypto } from "node:crypto";
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

const ALGORITHM = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" };
const subtle = webcrypto.subtle as SubtleCrypto;

type X509 = typeof import("@peculiar/x509");
let loaded: Promise<X509> | undefined;

/** @peculiar/x509, once: reflect-metadata (for its tsyringe container) must be installed before it loads. */
function x509(): Promise<X509> {
  loaded ??= (async () => {
    await import("reflect-metadata");
    const lib = await import("@peculiar/x509");
    lib.cryptoProvider.set(webcrypto as Crypto);
    return lib;
  })();
  return loaded;
}

/** A self-signed CA certificate (basicConstraints CA, keyCertSign) with a new key. */
export async function issueCa(o: IssueOptions): Promise<KeyPair> {
  const lib = await x509();
  const keys = await newKey();
  const cert = await lib.X509CertificateGenerator.createSelfSigned({
    serialNumber: serialNumber(),
    name: distinguishedName(o.commonName ?? "gitsync-webhook-ca"),
    ...validity(o),
    keys,
    signingAlgorithm: ALGORITHM,
    extensions: [
      new lib.BasicConstraintsExtension(true, undefined, true),
      new lib.KeyUsagesExtension(
        lib.KeyUsageFlags.digitalSignature | lib.KeyUsageFlags.keyCertSign | lib.KeyUsageFlags.cRLSign,
        true,
      ),
      await lib.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { cert: cert.toString("pem") + "\n", key: await pemKey(keys.privateKey) };
}

/** A serving certificate (serverAuth) for the names and addresses, signed by `ca`, with a new key. */
export async function issueServing(ca: KeyPair, o: ServingOptions): Promise<KeyPair> {
  for (const ip of o.ipAddresses ?? []) if (!isIP(ip)) throw new Error(`"${ip}" is not an IP address`);
  const names = [
    ...(o.dnsNames ?? []).map((value) => ({ type: "dns" as const, value })),
    ...(o.ipAddresses ?? []).map((value) => ({ type: "ip" as const, value })),
  ];
  if (!names.length) throw new Error("a serving certificate needs at least one DNS name or IP address");
  const lib = await x509();
  const caCert = new lib.X509Certificate(ca.cert);
  const caKey = await subtle.importKey("pkcs8", pemBody(ca.key), ALGORITHM, false, ["sign"]);
  const keys = await newKey();
  const cert = await lib.X509CertificateGenerator.create({
    serialNumber: serialNumber(),
    subject: distinguishedName(o.commonName ?? o.dnsNames?.[0] ?? o.ipAddresses![0]!),
    issuer: caCert.subjectName, // the CA's subject as encoded, byte for byte
    ...validity(o),
    publicKey: keys.publicKey,
    signingKey: caKey,
    signingAlgorithm: ALGORITHM,
    extensions: [
      new lib.BasicConstraintsExtension(false, undefined, true),
      new lib.KeyUsagesExtension(lib.KeyUsageFlags.digitalSignature, true),
      new lib.ExtendedKeyUsageExtension([lib.ExtendedKeyUsage.serverAuth]),
      new lib.SubjectAlternativeNameExtension(names),
      await lib.AuthorityKeyIdentifierExtension.create(await caCert.publicKey.export()),
    ],
  });
  return { cert: cert.toString("pem") + "\n", key: await pemKey(keys.privateKey) };
}

/** `CN=<name>`, with the characters RFC 4514 reserves escaped. */
const distinguishedName = (cn: string) => `CN=${cn.replace(/[\\,+"<>;=#]/g, "\\$&")}`;

function validity(o: IssueOptions) {
  return { notBefore: o.notBefore ?? new Date(Date.now() - 5 * 60_000), notAfter: o.notAfter };
}

/** 16 random bytes, positive (high bit clear), as hex. */
function serialNumber(): string {
  const serial = randomBytes(16);
  serial[0]! &= 0x7f;
  serial[0]! |= 0x01; // no leading zero byte, so the encoded INTEGER is always 16 bytes
  return serial.toString("hex");
}

function newKey(): Promise<CryptoKeyPair> {
  return subtle.generateKey(ALGORITHM, true, ["sign", "verify"]) as Promise<CryptoKeyPair>;
}

async function pemKey(key: CryptoKey): Promise<string> {
  const der = Buffer.from(await subtle.exportKey("pkcs8", key));
  return `-----BEGIN PRIVATE KEY-----\n${
    der.toString("base64").replace(/.{1,64}/g, "$&\n")
  }-----END PRIVATE KEY-----\n`;
}

/** The DER inside a PEM block. */
const pemBody = (pem: string) => Buffer.from(pem.replace(/-----[^-]+-----|\s/g, ""), "base64");
