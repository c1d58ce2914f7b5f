/**
 * Error bodies shared by every server. Schema failures are 400 with structured `issues`; known
 * HTTP errors keep their status and message; anything else is a 500 whose detail goes only to the
 * log, under the request id, so internals never reach a client.
 */
import type { Context, ErrorHandler, NotFoundHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { ZodError } from "zod";
import type { AppEnv } from "./env.ts";

export interface Issue {
  path: (string | number)[];
  message: string;
  code: string;
}

/** A 400 with structured issues, for failures found outside a zod schema. */
export class ValidationError extends Error {
  constructor(readonly issues: Issue[]) {
    super(issues.map((i) => `${i.path.join(".") || "body"}: ${i.message}`).join("; "));
    this.name = "ValidationError";
  }
}

export function validationBody(issues: Issue[]) {
  return { error: "invalid request", issues };
}

export function issuesOf(err: ZodError): Issue[] {
  return err.issues.map((i) => ({
    path: i.path.map((p) => (typeof p === "number" ? p : String(p))),
    message: i.message,
    code: i.code,
  }));
}

export const onError: ErrorHandler<AppEnv> = (err, c) => {
  if (err instanceof ZodError) return c.json(validationBody(issuesOf(err)), 400);
  if (err instanceof ValidationError) return c.json(validationBody(err.issues), 400);
  // A route that built its own error body (e.g. with a machine-readable code) keeps it.
  if (err instanceof HTTPException && err.res) return err.getResponse();
  if (err instanceof HTTPException && err.status < 500) {
    return c.json({ error: err.message || statusText(err.status) }, err.status as ContentfulStatusCode);
  }
  logOf(c).error("unhandled error", { err, method: c.req.method, path: c.req.path });
  return c.json({ error: "internal server error" }, 500);
};

export const notFound: NotFoundHandler<AppEnv> = (c) => c.json({ error: "not found" }, 404);

function logOf(c: Context<AppEnv>) {
  return c.get("log");
}

function statusText(status: number): string {
  return ({
    400: "bad request",
    401: "unauthorized",
    403: "forbidden",
    404: "not found",
    405: "method not allowed",
    413: "request body too large",
  } as Record<number, string>)[status] ??
    "request failed";
}
