/**
 * SOPS decryption (seed sections 1.4 and 2, spec.decryption): age-encrypted YAML, JSON, dotenv and
 * binary files, decrypted in memory with the MAC verified, as sops itself verifies it.
 *
 * The format, from getsops/sops: every leaf value becomes `ENC[AES256_GCM,data:…,iv:…,tag:…,type:…]`
 * (AES-256-GCM, a 32-byte IV, the tag apart), its additional data the map keys of its path joined with
 * `:` plus a trailing `:` (list indices not included). The 32-byte data key is age-encrypted for each
 * recipient under `sops.age`. The MAC is SHA-512 over the plaintext bytes of every leaf in document
 * order (only the encrypted ones, after SHA-256("sops"), with `mac_only_encrypted`), stored as
 * upper-case hex encrypted with the `lastmodified` text as additional data.
 *
 * Beyond sops: a value the file's own rules say must be encrypted but is in clear text is refused, so
 * someone with write access to the repository but no key cannot slip a plain value in.
 */
import { createDecipheriv, createHash } from "node:crypto";
import { armor, Decrypter } from "age-encryption";
import { isMap, isScalar, isSeq, type Node, parseAllDocuments, Scalar, type YAMLMap } from "yaml";

export class DecryptionFailure extends Error {
  override name = "DecryptionFailure";
  readonly reason = "DecryptionFailure";
}

export type SopsFormat = "yaml" | "json" | "dotenv" | "binary";

const ENC =
  /^ENC\[AES256_GCM,data:([A-Za-z0-9+/=]*),iv:([A-Za-z0-9+/=]+),tag:([A-Za-z0-9+/=]+),type:(str|int|float|bool|bytes|comment)\]$/;

interface Metadata {
  age?: { recipient?: string; enc?: string }[];
  lastmodified?: string;
  mac?: string;
  unencrypted_suffix?: string;
  encrypted_suffix?: string;
  unencrypted_regex?: string;
  encrypted_regex?: string;
  mac_only_encrypted?: boolean;
  shamir_threshold?: number;
  [provider: string]: unknown;
}

/** How a file is stored by sops, from its name and content; undefined when it is not SOPS-encrypted. */
const MARKER = Buffer.from("ENC[AES256_GCM,");

export function sopsFormat(path: string, bytes: Uint8Array): SopsFormat | undefined {
  // Cheap check first, on the bytes: every encrypted file carries the cipher's name.
  if (Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).indexOf(MARKER) < 0) return undefined;
  const text = new TextDecoder().decode(bytes.subarray(0, Math.min(bytes.length, 4 << 20)));
  if (/\.env$/i.test(path)) return /^sops_mac=/m.test(text) ? "dotenv" : undefined;
  if (/\.ya?ml$/i.test(path)) return /^sops:\s*$/m.test(text) ? "yaml" : undefined;
  if (!/^\s*\{/.test(text) || !/"sops"\s*:/.test(text)) return undefined;
  // JSON: a binary file encrypted by sops is JSON with one `data` value, whatever its name.
  return /\.json$/i.test(path) ? "json" : "binary";
}

/** The file decrypted, in its own format (a binary file: its bytes). */
export async function decryptSops(
  path: string,
  bytes: Uint8Array,
  identities: readonly string[],
  format = sopsFormat(path, bytes),
): Promise<Uint8Array> {
  if (!format) throw new DecryptionFailure(`${path} is not a SOPS-encrypted file`);
  const fail = (why: string) => new DecryptionFailure(`${path}: ${why}`);
  const text = new TextDecoder().decode(bytes);
  const file = format === "dotenv" ? parseDotenv(text, fail) : parseTree(text, format, fail);
  const dataKey = await unwrapDataKey(file.metadata, identities, fail);
  const rules = encryptionRules(file.metadata, fail);
  const macOnlyEncrypted = file.metadata.mac_only_encrypted === true;
  const hash = createHash("sha512");
  if (macOnlyEncrypted) hash.update(createHash("sha256").update("sops").digest());

  for (const leaf of file.leaves) {
    const match = typeof leaf.value === "string" ? ENC.exec(leaf.value) : null;
    if (!match) {
      // sops leaves empty strings as they are (and they add nothing to the MAC).
      if (leaf.value !== "" && leaf.value !== null && rules.mustEncrypt(leaf.path)) {
        throw fail(`the value at ${leaf.path.join(".")} is not encrypted`);
      }
      if (!macOnlyEncrypted && leaf.value !== null) hash.update(goBytes(leaf.value));
      continue;
    }
    const [, data, iv, tag, type] = match;
    const plain = aesGcm(
      dataKey,
      data!,
      iv!,
      tag!,
      `${leaf.path.join(":")}:`,
      () => fail(`the value at ${leaf.path.join(".")} does not decrypt (tampered with, or moved)`),
    );
    hash.update(plain);
    leaf.set(typed(plain, type!, fail));
  }

  const lastModified = file.metadata.lastmodified;
  const storedMac = typeof file.metadata.mac === "string" ? ENC.exec(file.metadata.mac) : null;
  if (!lastModified || !storedMac) throw fail("the sops metadata has no MAC or lastmodified");
  const mac = new TextDecoder().decode(
    aesGcm(
      dataKey,
      storedMac[1]!,
      storedMac[2]!,
      storedMac[3]!,
      lastModified,
      () => fail("the MAC does not decrypt"),
    ),
  );
  if (mac.toUpperCase() !== hash.digest("hex").toUpperCase()) {
    throw fail("MAC mismatch: the file was changed after it was encrypted");
  }
  return file.output();
}

// ---- the walk ----

interface Leaf {
  /** Map keys from the root (list indices left out, as sops leaves them out of the additional data). */
  path: string[];
  value: unknown;
  set(value: unknown): void;
}

interface SopsFile {
  metadata: Metadata;
  leaves: Leaf[];
  output(): Uint8Array;
}

/** YAML, JSON and binary (JSON read as YAML keeps its key order, which the MAC depends on). */
function parseTree(text: string, format: SopsFormat, fail: (why: string) => Error): SopsFile {
  const docs = parseAllDocuments(text, { version: "1.2" });
  if (!Array.isArray(docs)) throw fail("not YAML or JSON");
  let metadata: Metadata | undefined;
  const leaves: Leaf[] = [];
  for (const doc of docs) {
    if (doc.errors.length) throw fail(`not valid YAML or JSON: ${doc.errors[0]!.message.split("\n")[0]}`);
    if (!isMap(doc.contents)) continue;
    const sops = doc.contents.get("sops", true);
    if (sops) {
      metadata ??= (sops as Node).toJSON() as Metadata;
      doc.contents.delete("sops");
    }
    walk(doc.contents, [], leaves);
  }
  if (!metadata) throw fail("no sops metadata");
  const encode = (s: string) => new TextEncoder().encode(s);
  return {
    metadata,
    leaves,
    output: () => {
      if (format === "binary") return encode(String((docs[0]!.contents as YAMLMap).get("data") ?? ""));
      if (format === "json") {
        const json = JSON.stringify(docs[0]!.toJS(), (_k, v) => (typeof v === "bigint" ? Number(v) : v), 2);
        return encode(`${json}\n`);
      }
      return encode(docs.map((d) => d.toString()).join(""));
    },
  };
}

function walk(node: unknown, path: string[], leaves: Leaf[]) {
  if (isMap(node)) {
    for (const pair of node.items) {
      const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
      dropEncryptedComments(pair.key);
      if (isScalar(pair.value) || pair.value === null) {
        leaves.push(leaf([...path, key], pair.value as Scalar | null, (v) => (pair.value = new Scalar(v))));
      } else walk(pair.value, [...path, key], leaves);
    }
  } else if (isSeq(node)) {
    node.items.forEach((item, i) => {
      if (isScalar(item) || item === null) {
        leaves.push(leaf(path, item as Scalar | null, (v) => (node.items[i] = new Scalar(v))));
      } else walk(item, path, leaves);
    });
  }
}

function leaf(path: string[], node: Scalar | null, set: (v: unknown) => void): Leaf {
  dropEncryptedComments(node);
  return { path, value: node ? node.value : null, set };
}

/** sops encrypts comments too (type comment). They are not part of the MAC, and are dropped here. */
function dropEncryptedComments(node: unknown) {
  const n = node as { commentBefore?: string | null; comment?: string | null } | null;
  if (!n || typeof n !== "object") return;
  if (n.commentBefore?.includes("ENC[AES256_GCM,")) n.commentBefore = null;
  if (n.comment?.includes("ENC[AES256_GCM,")) n.comment = null;
}

/** dotenv: `KEY=value` lines; the metadata flattened into `sops_…` keys. */
function parseDotenv(text: string, fail: (why: string) => Error): SopsFile {
  const lines = text.split("\n");
  const metadata: Metadata = {};
  const age: Record<number, { recipient?: string; enc?: string }> = {};
  const leaves: Leaf[] = [];
  const out: string[] = [];
  for (const line of lines) {
    if (!line || line.startsWith("#")) {
      out.push(line);
      continue;
    }
    const eq = line.indexOf("=");
    if (eq < 1) throw fail(`not a KEY=value line: ${line.slice(0, 40)}`);
    const key = line.slice(0, eq);
    const value = line.slice(eq + 1);
    const ageKey = /^sops_age__list_(\d+)__map_(recipient|enc)$/.exec(key);
    if (ageKey) {
      (age[Number(ageKey[1])] ??= {})[ageKey[2] as "recipient" | "enc"] = value.replaceAll("\\n", "\n");
      continue;
    }
    if (key.startsWith("sops_")) {
      const name = key.slice("sops_".length);
      metadata[name] = name === "mac_only_encrypted" ? value === "true" : value;
      continue;
    }
    const at = out.push(line) - 1;
    leaves.push({ path: [key], value, set: (v) => (out[at] = `${key}=${String(v)}`) });
  }
  metadata.age = Object.keys(age).sort((a, b) => Number(a) - Number(b)).map((i) => age[Number(i)]!);
  return { metadata, leaves, output: () => new TextEncoder().encode(out.join("\n")) };
}

// ---- keys, ciphers and values ----

async function unwrapDataKey(
  metadata: Metadata,
  identities: readonly string[],
  fail: (why: string) => Error,
): Promise<Buffer> {
  if (metadata.shamir_threshold && metadata.shamir_threshold > 1) {
    throw fail("Shamir key groups are not supported; encrypt the file for one group of age recipients");
  }
  const stanzas = (metadata.age ?? []).filter((a) => typeof a.enc === "string");
  if (!stanzas.length) throw fail("the file is not encrypted for any age recipient");
  if (!identities.length) throw fail("no age identities to decrypt with");
  const decrypter = new Decrypter();
  for (const id of identities) decrypter.addIdentity(id);
  for (const { enc } of stanzas) {
    try {
      const key = await decrypter.decrypt(armor.decode(enc!));
      if (key.length === 32) return Buffer.from(key);
    } catch {
      // Not this recipient's: try the next.
    }
  }
  throw fail(
    `none of the age keys decrypts it (recipients: ${stanzas.map((s) => s.recipient).join(", ")})`,
  );
}

function aesGcm(
  key: Buffer,
  data: string,
  iv: string,
  tag: string,
  aad: string,
  failure: () => Error,
): Buffer {
  try {
    const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64"));
    decipher.setAAD(Buffer.from(aad));
    decipher.setAuthTag(Buffer.from(tag, "base64"));
    return Buffer.concat([decipher.update(Buffer.from(data, "base64")), decipher.final()]);
  } catch {
    throw failure();
  }
}

function typed(plain: Buffer, type: string, fail: (why: string) => Error): unknown {
  const text = plain.toString("utf8");
  switch (type) {
    case "int": {
      // Integers beyond 2^53 keep their digits (as a bigint) rather than being rounded.
      const n = BigInt(text);
      return n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n;
    }
    case "float":
      return Number(text);
    case "bool":
      if (!/^(true|false)$/i.test(text)) throw fail(`a bool value reads "${text}"`);
      return text.toLowerCase() === "true";
    default:
      return text;
  }
}

/** The bytes sops hashes for a clear-text value (Go's ToBytes). */
function goBytes(value: unknown): Buffer {
  if (typeof value === "string") return Buffer.from(value);
  if (typeof value === "boolean") return Buffer.from(value ? "True" : "False");
  if (typeof value === "bigint") return Buffer.from(value.toString());
  if (typeof value === "number") {
    if (Number.isInteger(value) && Math.abs(value) < 1e21) return Buffer.from(value.toFixed(0));
    return Buffer.from(goFormatFloat(value));
  }
  return Buffer.from(String(value));
}

/** strconv.FormatFloat(f, 'f', -1, 64): the shortest digits that read back, never an exponent. */
function goFormatFloat(f: number): string {
  const s = String(f);
  if (!/e/i.test(s)) return s;
  const [mantissa, exp] = s.split(/e/i) as [string, string];
  const negative = mantissa.startsWith("-");
  const digits = mantissa.replace(/^-/, "").replace(".", "");
  const point = (mantissa.replace(/^-/, "").indexOf(".") + 1 || mantissa.replace(/^-/, "").length + 1) - 1 +
    Number(exp);
  const body = point <= 0
    ? `0.${"0".repeat(-point)}${digits}`
    : point >= digits.length
    ? digits + "0".repeat(point - digits.length)
    : `${digits.slice(0, point)}.${digits.slice(point)}`;
  return (negative ? "-" : "") + body;
}

/** Which leaves the file's own settings say are encrypted (sops' suffix and regex rules). */
function encryptionRules(metadata: Metadata, fail: (why: string) => Error) {
  const regex = (source: unknown) => {
    if (typeof source !== "string" || !source) return undefined;
    try {
      return new RegExp(source);
    } catch {
      throw fail(`the sops metadata has an invalid regex ${source}`);
    }
  };
  const encryptedRegex = regex(metadata.encrypted_regex);
  const unencryptedRegex = regex(metadata.unencrypted_regex);
  const encryptedSuffix = typeof metadata.encrypted_suffix === "string" ? metadata.encrypted_suffix : "";
  const unencryptedSuffix = typeof metadata.unencrypted_suffix === "string"
    ? metadata.unencrypted_suffix
    : encryptedSuffix || encryptedRegex || unencryptedRegex
    ? ""
    : "_unencrypted";
  return {
    mustEncrypt(path: string[]): boolean {
      if (unencryptedSuffix && path.some((k) => k.endsWith(unencryptedSuffix))) return false;
      if (encryptedSuffix) return path.some((k) => k.endsWith(encryptedSuffix));
      if (encryptedRegex) return path.some((k) => encryptedRegex.test(k));
      if (unencryptedRegex) return !path.some((k) => unencryptedRegex.test(k));
      return true;
    },
  };
}
