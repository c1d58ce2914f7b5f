import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KubeObject } from "../../../internal/k8s/mod.ts";
import type { Health } from "../health/assess.ts";
import { hasOwnDeadline, judgeWave, withRootCause } from "./health_failure.ts";

const deployment = (name: string): KubeObject => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name, namespace: "shop" },
  spec: { progressDeadlineSeconds: 600 },
});
const service = (name: string): KubeObject => ({
  apiVersion: "v1",
  kind: "Service",
  metadata: { name, namespace: "shop" },
  spec: { type: "LoadBalancer" },
});
const h = (status: Health["status"], message = ""): Health => ({ status, message });
const now = new Date("2026-01-01T00:10:00Z");
const clock = (since?: string) => ({ since, now, timeoutMs: 5 * 60_000 });

describe("judgeWave", () => {
  it("a wave of Healthy objects is healthy", () => {
    assert.deepEqual(judgeWave([{ object: deployment("web"), health: h("Healthy") }], clock()), {
      outcome: "healthy",
    });
  });

  it("a Degraded object fails the wave at once with HealthFailure naming it", () => {
    const v = judgeWave([
      { object: service("lb"), health: h("Progressing", "waiting for the load balancer's address") },
      { object: deployment("web"), health: h("Degraded", "deployment exceeded its progress deadline") },
    ], clock());
    assert.equal(v.outcome, "failed");
    if (v.outcome !== "failed") return;
    assert.equal(v.failure.reason, "HealthFailure");
    assert.equal(
      v.failure.message,
      "Deployment/shop/web is Degraded: deployment exceeded its progress deadline",
    );
    assert.deepEqual(v.failure.resource, {
      apiVersion: "apps/v1",
      kind: "Deployment",
      namespace: "shop",
      name: "web",
    });
    assert.equal(v.failure.retryable, true);
    assert.deepEqual(v.unhealthy.map((o) => o.metadata?.name), ["lb", "web"]);
  });

  it("waits, naming the first object it waits for, until the health timeout", () => {
    const wave = [{
      object: service("lb"),
      health: h("Progressing", "waiting for the load balancer's address"),
    }];
    const v = judgeWave(wave, clock("2026-01-01T00:06:00Z"));
    assert.deepEqual(v, {
      outcome: "waiting",
      waitingFor: "Service/shop/lb: Progressing (waiting for the load balancer's address)",
      unhealthy: [service("lb")],
    });
    // Not started yet (no waitingSince): it begins now, whatever the timeout.
    assert.equal(judgeWave(wave, { since: undefined, now, timeoutMs: 0 }).outcome, "waiting");
    const late = judgeWave(wave, clock("2026-01-01T00:05:00Z"));
    assert.equal(late.outcome, "failed");
    if (late.outcome !== "failed") return;
    assert.equal(
      late.failure.message,
      "Service/shop/lb is not Healthy after 5m (spec.healthTimeout): Progressing (waiting for the load balancer's address)",
    );
  });

  it("a Deployment waits for its own progress deadline, not the health timeout", () => {
    const wave = [{
      object: deployment("web"),
      health: h("Progressing", "0 of 2 updated replicas are available"),
    }];
    assert.equal(judgeWave(wave, clock("2026-01-01T00:00:00Z")).outcome, "waiting");
    // Beside an overdue object without a deadline, that object is the one named.
    const v = judgeWave([...wave, { object: service("lb"), health: h("Unknown", "no status") }], {
      ...clock("2026-01-01T00:00:00Z"),
    });
    assert.equal(v.outcome, "failed");
    if (v.outcome === "failed") assert.match(v.failure.message, /^Service\/shop\/lb is not Healthy after 5m/);
  });

  it("only a Deployment with progressDeadlineSeconds has a deadline of its own", () => {
    assert.equal(hasOwnDeadline(deployment("web")), true);
    assert.equal(hasOwnDeadline({ ...deployment("web"), spec: {} }), false);
    assert.equal(hasOwnDeadline({ ...deployment("db"), kind: "StatefulSet" }), false);
  });
});

describe("judgeWave with a ProgressDeadlineExceeded from before the wave", () => {
  const timedOut = (at: string): KubeObject => ({
    ...deployment("web"),
    spec: { progressDeadlineSeconds: 60 },
    status: {
      conditions: [{
        type: "Progressing",
        status: "False",
        reason: "ProgressDeadlineExceeded",
        lastUpdateTime: at,
      }],
    },
  });
  const degraded = h("Degraded", "deployment exceeded its progress deadline");

  it("a rollback over a timed-out Deployment waits for its deadline instead of failing at once", () => {
    const wave = [{ object: timedOut("2026-01-01T00:00:00Z"), health: degraded }];
    const v = judgeWave(wave, { since: "2026-01-01T00:09:30Z", now, timeoutMs: 5 * 60_000 });
    assert.equal(v.outcome, "waiting");
    if (v.outcome === "waiting") assert.match(v.waitingFor, /whose own deadline ends in 30s\)\)$/);
    // Not waited yet: the whole deadline is ahead.
    assert.equal(judgeWave(wave, { since: undefined, now, timeoutMs: 1 }).outcome, "waiting");
    // Once the deadline has passed for this wave too, it fails.
    assert.equal(judgeWave(wave, { since: "2026-01-01T00:09:00Z", now, timeoutMs: 1 }).outcome, "failed");
  });

  it("a deadline exceeded during this wave fails it", () => {
    const wave = [{ object: timedOut("2026-01-01T00:09:50Z"), health: degraded }];
    assert.equal(judgeWave(wave, clock("2026-01-01T00:09:30Z")).outcome, "failed");
  });
});

describe("withRootCause", () => {
  it("appends the diagnosis' first root cause; without one the message stays", () => {
    const diagnosis = {
      firstRootCause: {
        reason: "CrashLoopBackOff",
        message: "container app: back-off 40s restarting failed container",
        resource: { kind: "Pod", name: "web-1-a" },
      },
      causes: [],
      diagnosedAt: "2026-01-01T00:00:00Z",
    };
    assert.equal(
      withRootCause("Deployment/shop/web is Degraded", diagnosis),
      "Deployment/shop/web is Degraded; root cause CrashLoopBackOff: Pod/web-1-a: container app: back-off 40s restarting failed container",
    );
    assert.equal(withRootCause("x", undefined), "x");
  });
});
