/**
 * The HTTP endpoints edgectl reads besides Kubernetes (Prometheus, Jaeger): checked before use, with
 * credentials in the URL (`https://user:pass@prometheus`) moved to a Basic Authorization header and
 * left out of every message, so a password never reaches a terminal or a CI log.
 */
import { Buffer } from "node:buffer";

export interface Endpoint {
  /** Base URL without credentials and without a trailing slash: safe to print. */
  url: string;
  /** Headers to send (Authorization when the URL carried credentials). */
  headers: Record<string, string>;
}

/** The endpoint of `text`, or an error message naming `flag` (secrets left out). */
export function parseEndpoint(text: string, flag: string): Endpoint | string {
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    return `${flag}: "${redact(text)}" is not a URL (e.g. http://localhost:9090)`;
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") {
    return `${flag}: "${redact(text)}" is not an http or https URL`;
  }
  const headers: Record<string, string> = {};
  if (u.username || u.password) {
    const user = decodeURIComponent(u.username);
    const pass = decodeURIComponent(u.password);
    headers.authorization = `Basic ${Buffer.from(`${user}:${pass}`).toString("base64")}`;
    u.username = "";
    u.password = "";
  }
  return { url: u.toString().replace(/\/+$/, ""), headers };
}

/** `text` with any `user:password@` removed, for messages about a URL that did not parse. */
function redact(text: string): string {
  return text.replace(/\/\/[^/@]*@/, "//");
}
