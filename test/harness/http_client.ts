/**
 * A small HTTP client for black-box tests: JSON in and out, and either a session cookie (kept from
 * Set-Cookie like a browser, which also sends its page's Origin) or an Authorization bearer.
 */
export interface Reply {
  status: number;
  // deno-lint-ignore no-explicit-any
  body: any;
  headers: Headers;
}

export class Client {
  cookie?: string;
  bearer?: string;
  origin?: string;

  constructor(readonly baseUrl: string, init: { bearer?: string; cookie?: string; origin?: string } = {}) {
    Object.assign(this, init);
  }

  async call(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Reply> {
    const h = new Headers(headers);
    if (body !== undefined) h.set("content-type", "application/json");
    if (this.cookie) h.set("cookie", this.cookie);
    if (this.bearer) h.set("authorization", `Bearer ${this.bearer}`);
    if (this.origin && !h.has("origin")) h.set("origin", this.origin);
    const res = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: h,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const setCookie = res.headers.getSetCookie?.() ?? [];
    const session = setCookie.map((c) => c.split(";")[0]!).filter((c) => c.includes("session_token="));
    if (session.length) this.cookie = session.join("; ");
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON
    }
    return { status: res.status, body: parsed, headers: res.headers };
  }

  get = (path: string, headers?: Record<string, string>) => this.call("GET", path, undefined, headers);
  post = (path: string, body: unknown = {}, headers?: Record<string, string>) =>
    this.call("POST", path, body, headers);
  delete = (path: string) => this.call("DELETE", path);
}
