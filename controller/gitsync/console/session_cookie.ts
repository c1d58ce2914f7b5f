/**
 * The console's session lives only in its cookie: JSON sealed with AES-256-GCM (random 96-bit nonce,
 * the cookie name as associated data), HttpOnly, Secure, SameSite=Lax, Path=/. A Kubernetes token may
 * be up to 16 KiB, more than one cookie holds (browsers keep 4 KiB), so the sealed value is split
 * over numbered cookies `<name>.0`, `<name>.1`, ... and joined again on read.
 *
 * @example
 * const cookies = new SessionCookies(await loadSessionKey({ file: "/etc/console/session.key" }));
 * const headers = cookies.set("gitsync_session", session, session.expiresAt); // Set-Cookie values
 * const back = cookies.get<Session>(req.headers.get("cookie"), "gitsync_session");
 */
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";

/** What a signed-in browser holds. */
export interface Session {
  mode: "token" | "oidc";
  user: string;
  groups: string[];
  /** Token mode only: the bearer token every read carries. */
  token?: string;
  /** Milliseconds since the epoch: token expiry or 8 h after sign-in, whichever is first. */
  expiresAt: number;
}

/** Characters of sealed value per cookie (the name and attributes fit in the rest of 4 KiB). */
const CHUNK = 3800;
/** 16 KiB of token sealed and base64url-encoded needs 6; one more for the rest of the session. */
const MAX_CHUNKS = 8;

/**
 * The 32-byte key: from a file (raw 32 bytes, or 64 hex / 44 base64 characters) or an environment
 * value (hex or base64). Anything else is refused with a message naming the source.
 */
export function loadSessionKey(source: { file?: string; value?: string; name?: string }): Uint8Array {
  const where = source.file ?? source.name ?? "the session key";
  let raw: Uint8Array;
  if (source.file) {
    try {
      raw = new Uint8Array(readFileSync(source.file));
    } catch (err) {
      throw new Error(`cannot read the session key file ${source.file}: ${(err as Error).message}`);
    }
  } else raw = new TextEncoder().encode(source.value ?? "");
  if (raw.length === 32 && source.file && !/^[0-9a-f]+$/i.test(new TextDecoder().decode(raw))) return raw;
  const text = new TextDecoder().decode(raw).trim();
  if (/^[0-9a-f]{64}$/i.test(text)) return new Uint8Array(Buffer.from(text, "hex"));
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(text)) {
    const key = Buffer.from(text, "base64");
    if (key.length === 32) return new Uint8Array(key);
  }
  throw new Error(
    `${where}: the session key must be 32 bytes (raw in a file, or 64 hex or 44 base64 characters); ` +
      "make one with `openssl rand -hex 32`",
  );
}

function parseCookies(header: string | null | undefined): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of (header ?? "").split(";")) {
    const i = part.indexOf("=");
    if (i > 0) out.set(part.slice(0, i).trim(), part.slice(i + 1).trim());
  }
  return out;
}

export class SessionCookies {
  constructor(private readonly key: Uint8Array) {
    if (key.length !== 32) throw new Error("the session key must be 32 bytes (AES-256)");
  }

  seal(name: string, value: unknown): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.key, iv);
    cipher.setAAD(Buffer.from(name));
    const body = Buffer.concat([cipher.update(JSON.stringify(value), "utf8"), cipher.final()]);
    return Buffer.concat([iv, body, cipher.getAuthTag()]).toString("base64url");
  }

  /** The sealed value, or undefined when it is missing, altered or sealed with another key. */
  open<T>(name: string, sealed: string): T | undefined {
    try {
      const raw = Buffer.from(sealed, "base64url");
      if (raw.length < 12 + 16) return undefined;
      const decipher = createDecipheriv("aes-256-gcm", this.key, raw.subarray(0, 12));
      decipher.setAAD(Buffer.from(name));
      decipher.setAuthTag(raw.subarray(raw.length - 16));
      const text = Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]);
      return JSON.parse(text.toString("utf8")) as T;
    } catch {
      return undefined;
    }
  }

  /** Set-Cookie values that store `value` until `expiresAt` and clear any chunks left from before. */
  set(name: string, value: unknown, expiresAt: number): string[] {
    const sealed = this.seal(name, value);
    const chunks = Math.ceil(sealed.length / CHUNK);
    if (chunks > MAX_CHUNKS) throw new Error("session too large for its cookies");
    const maxAge = Math.max(0, Math.floor((expiresAt - Date.now()) / 1000));
    const attrs = `; Path=/; HttpOnly; Secure; SameSite=Lax; Max-Age=${maxAge}`;
    const out: string[] = [];
    for (let i = 0; i < MAX_CHUNKS; i++) {
      out.push(
        i < chunks
          ? `${name}.${i}=${sealed.slice(i * CHUNK, (i + 1) * CHUNK)}${attrs}`
          : `${name}.${i}=; Path=/; HttpOnly; Secure; SameSite=Lax; Max-Age=0`,
      );
    }
    return out;
  }

  /** Set-Cookie values that delete every chunk. */
  clear(name: string): string[] {
    return Array.from(
      { length: MAX_CHUNKS },
      (_, i) => `${name}.${i}=; Path=/; HttpOnly; Secure; SameSite=Lax; Max-Age=0`,
    );
  }

  /** The value in the request's cookies, or undefined. */
  get<T>(cookieHeader: string | null | undefined, name: string): T | undefined {
    const cookies = parseCookies(cookieHeader);
    let sealed = "";
    for (let i = 0; i < MAX_CHUNKS; i++) {
      const part = cookies.get(`${name}.${i}`);
      if (!part) break;
      sealed += part;
    }
    return sealed ? this.open<T>(name, sealed) : undefined;
  }
}
