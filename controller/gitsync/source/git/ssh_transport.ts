/**
 * ssh:// and scp-style remotes: an SSH connection (ssh2, pure JavaScript) that runs
 * `git-upload-pack '<path>'`, then carries the exchange of upload_pack_stream.ts. The server's host key
 * must be in the credentials Secret's `known_hosts` (OpenSSH format: plain, `[host]:port` and hashed
 * `|1|salt|hash` entries, `*`/`?` patterns, `!` negations, `@revoked` honoured); without an entry nothing
 * is sent. Authentication with the Secret's `identity` (private key; `password` is its passphrase) or,
 * without one, its `password`.
 */
import { createHmac } from "node:crypto";
import ssh2 from "ssh2";
import type { UploadPackStream } from "./upload_pack_stream.ts";

export interface SshTarget {
  host: string;
  port: number;
  username: string;
  /** The path git-upload-pack gets (absolute for ssh:// URLs, home-relative for scp-style). */
  path: string;
  knownHosts: string;
  privateKey?: string;
  password?: string;
  timeoutMs?: number;
}

/** The host key was not in known_hosts, or was revoked there: the connection was refused before auth. */
export class HostKeyRefused extends Error {
  override name = "HostKeyRefused";
}

/** Refused by the server's authentication. */
export class SshAuthFailed extends Error {
  override name = "SshAuthFailed";
}

interface KnownHost {
  marker?: "@revoked" | "@cert-authority";
  patterns: string[];
  key: Buffer;
}

export function parseKnownHosts(text: string): KnownHost[] {
  const out: KnownHost[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith("#")) continue;
    const fields = line.split(/\s+/);
    const marker = fields[0]?.startsWith("@") ? fields.shift() as KnownHost["marker"] : undefined;
    const [hosts, , key] = fields;
    if (!hosts || !key) continue;
    out.push({ ...(marker ? { marker } : {}), patterns: hosts.split(","), key: Buffer.from(key, "base64") });
  }
  return out;
}

/** Whether one known_hosts host pattern names `host` on `port` (OpenSSH's rules). */
function matches(pattern: string, host: string, port: number): boolean {
  const name = port === 22 ? host : `[${host}]:${port}`;
  if (pattern.startsWith("|1|")) {
    const [, , salt, hash] = pattern.split("|");
    if (!salt || !hash) return false;
    return createHmac("sha1", Buffer.from(salt, "base64")).update(name).digest("base64") === hash;
  }
  const glob = new RegExp(
    `^${pattern.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*").replace(/\?/g, ".")}$`,
    "i",
  );
  return glob.test(name);
}

/** Whether `key` (the SSH wire form) is a known, unrevoked key of `host`. */
export function hostKeyKnown(entries: KnownHost[], host: string, port: number, key: Buffer): boolean {
  const forHost = entries.filter((e) => {
    const negated = e.patterns.some((p) => p.startsWith("!") && matches(p.slice(1), host, port));
    return !negated && e.patterns.some((p) => !p.startsWith("!") && matches(p, host, port));
  });
  if (forHost.some((e) => e.marker === "@revoked" && e.key.equals(key))) return false;
  return forHost.some((e) => !e.marker && e.key.equals(key));
}

/** A POSIX shell single-quoted word, as git quotes the path it asks the server to serve. */
function shellQuote(s: string): string {
  return `'${s.replaceAll("'", `'\\''`)}'`;
}

export function openSsh(t: SshTarget): () => Promise<UploadPackStream> {
  const known = parseKnownHosts(t.knownHosts);
  return () =>
    new Promise((resolve, reject) => {
      const client = new ssh2.Client();
      let hostKeyRefused = false;
      client.once("error", (err: Error & { level?: string }) => {
        if (hostKeyRefused) {
          reject(
            new HostKeyRefused(`the host key of ${t.host}:${t.port} is not in the Secret's known_hosts`),
          );
        } else if (err.level === "client-authentication") {
          reject(new SshAuthFailed(`${t.username}@${t.host} refused the SSH credentials`));
        } else reject(err);
      });
      client.once("ready", () => {
        client.exec(`git-upload-pack ${shellQuote(t.path)}`, (err, channel) => {
          if (err) {
            client.end();
            return reject(err);
          }
          let stderr = "";
          channel.stderr.on("data", (d: Buffer) => (stderr = (stderr + d).slice(-1000)));
          channel.on("exit", (code: number | null) => {
            if (code) channel.emit("error", new Error(`git-upload-pack exited ${code}: ${stderr.trim()}`));
          });
          const stream: UploadPackStream = {
            on: (event: string, listener: (...args: never[]) => void) => channel.on(event, listener),
            write: (chunk: Uint8Array) => channel.write(chunk),
            destroy: () => {
              channel.destroy();
              client.end();
            },
          } as UploadPackStream;
          channel.on("close", () => client.end());
          resolve(stream);
        });
      });
      client.connect({
        host: t.host,
        port: t.port,
        username: t.username,
        ...(t.privateKey
          ? { privateKey: t.privateKey, ...(t.password ? { passphrase: t.password } : {}) }
          : {}),
        ...(!t.privateKey && t.password ? { password: t.password } : {}),
        readyTimeout: t.timeoutMs ?? 30_000,
        hostVerifier: (key: Buffer) => {
          const ok = hostKeyKnown(known, t.host, t.port, key);
          hostKeyRefused = !ok;
          return ok;
        },
      });
    });
}
