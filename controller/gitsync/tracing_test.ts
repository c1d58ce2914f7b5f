import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { InMemorySpanExporter } from "@opentelemetry/sdk-trace";
import { createLogger } from "../../internal/log/mod.ts";
import { inSpan, spanAttributes, startTracing } from "./tracing.ts";

describe("tracing", () => {
  const log = createLogger({ level: "error" });

  it("is off without an endpoint, and with OTEL_SDK_DISABLED=true", () => {
    assert.equal(startTracing({}, log), undefined);
    assert.equal(
      startTracing({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4317", OTEL_SDK_DISABLED: "TRUE" }, log),
      undefined,
    );
  });

  it("spans nest, carry redacted attributes, record failures, and name the service", async () => {
    const saved = { ...process.env };
    process.env.OTEL_SERVICE_NAME = "gitsync-test";
    process.env.OTEL_RESOURCE_ATTRIBUTES = "deployment.environment=ci,team=platform";
    const exporter = new InMemorySpanExporter();
    const tracing = startTracing({}, log, exporter)!;
    after(() => tracing.shutdown());
    process.env = saved;

    await inSpan("reconcile Revision", { "gitsync.object": "shop/web-1" }, async () => {
      await inSpan(
        "render",
        { "gitsync.source.url": "https://bot:hunter2@git.example.com/x.git" },
        async () => {},
      );
      await assert.rejects(
        inSpan("apply group", { "gitsync.stage": "wave" }, () => {
          throw new Error("denied with password=hunter2");
        }),
      );
      spanAttributes({ "gitsync.outcome": "progressing" });
    });
    await tracing.flush();
    const spans = exporter.getFinishedSpans();
    const byName = Object.fromEntries(spans.map((s) => [s.name, s]));
    assert.deepEqual(Object.keys(byName).sort(), ["apply group", "reconcile Revision", "render"]);
    const root = byName["reconcile Revision"]!;
    for (const child of [byName.render!, byName["apply group"]!]) {
      assert.equal(child.parentSpanContext?.spanId, root.spanContext().spanId);
      assert.equal(child.spanContext().traceId, root.spanContext().traceId);
    }
    assert.equal(root.attributes["gitsync.outcome"], "progressing");
    assert.equal(byName["apply group"]!.status.code, 2); // ERROR
    assert.doesNotMatch(JSON.stringify(spans.map((s) => [s.attributes, s.status, s.events])), /hunter2/);
    assert.equal(root.resource.attributes["service.name"], "gitsync-test");
    assert.equal(root.resource.attributes["team"], "platform");
  });
});
