/**
 * The health probes (--health-probe-bind-address): GET /healthz is ok while the process runs; /readyz
 * once the caches are synced and, with the webhook on, a certificate is served (the Service then sends
 * the API server only to replicas that can answer). Plain text, as kubelet reads them.
 */
import { Hono } from "hono";
import type { AppEnv } from "../../../internal/http/mod.ts";

/** Why the replica is not ready yet, or undefined when it is. */
export type Readiness = () => string | undefined;

export function probesApp(notReady: Readiness): Hono<AppEnv> {
  const text = (body: string, status: 200 | 404 | 503) =>
    new Response(body, { status, headers: { "content-type": "text/plain" } });
  const app = new Hono<AppEnv>();
  app.all("/healthz", () => text("ok", 200));
  app.all("/readyz", () => {
    const why = notReady();
    return why ? text(why, 503) : text("ok", 200);
  });
  app.notFound(() => text("not found", 404));
  return app;
}
