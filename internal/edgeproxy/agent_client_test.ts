import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { CliError } from "../cli/mod.ts";
import { freePort } from "../http/free_port.ts";
import { startTestAgent, type TestAgent } from "../../test/edgectl/agent/agent_server.ts";
import { agentAddress, type AgentPod, agentTarget, callAgent, callAgents } from "./agent_client.ts";

let agent: TestAgent;
let slow: TestAgent;
before(async () => {
  agent = await startTestAgent({ node: "n1" });
  slow = await startTestAgent({ node: "n2", delayMs: 2000 });
});
after(async () => {
  await agent.close();
  await slow.close();
});

function pod(annotations: Record<string, string> = {}, podIP?: string): AgentPod {
  return {
    metadata: { name: "a", namespace: "edge-system", annotations },
    spec: { containers: [{ name: "agent" }] },
    status: podIP ? { podIP } : {},
  };
}

test("the address: --agent-addr, then the annotation, then the Pod IP on 9092 (IPv6 bracketed)", () => {
  const annotated = pod({ "edgeproxy.io/agent-address": "127.0.0.1:7000" }, "10.0.0.1");
  assert.equal(agentAddress(annotated, "127.0.0.1:1"), "127.0.0.1:1");
  assert.equal(agentAddress(annotated), "127.0.0.1:7000");
  assert.equal(agentAddress(pod({}, "10.0.0.1")), "10.0.0.1:9092");
  assert.equal(agentAddress(pod({}, "fd00::1")), "[fd00::1]:9092");
  assert.equal(agentAddress(pod()), undefined);
});

test("a Pod without an IP or annotation is an error naming it and its phase", () => {
  const pending = { ...pod(), status: { phase: "Pending" } };
  assert.throws(() => agentTarget(pending), { message: "agent a has no Pod IP yet (phase Pending)" });
  assert.deepEqual(agentTarget({ ...pod({}, "10.0.0.1"), spec: { nodeName: "n1", containers: [] } }), {
    name: "a",
    node: "n1",
    address: "10.0.0.1:9092",
  });
});

test("a call answers; a closed port and a slow agent become one-line CliErrors", async () => {
  const config = await callAgent({ name: "a", address: agent.address }, 1000, (c, o) => c.getConfig({}, o));
  assert.equal(config.node, "n1");
  const dead = `127.0.0.1:${await freePort()}`;
  await assert.rejects(
    callAgent({ name: "d", address: dead }, 1000, (c, o) => c.getConfig({}, o)),
    (err: unknown) => err instanceof CliError && err.message.startsWith(`agent d (${dead}) is unreachable: `),
  );
  await assert.rejects(
    callAgent({ name: "s", address: slow.address }, 200, (c, o) => c.getConfig({}, o)),
    (err: unknown) =>
      err instanceof CliError &&
      err.message === `agent s (${slow.address}) did not answer within 200ms (deadline exceeded)`,
  );
});

test("callAgents keeps order and reports each failure in its place", async () => {
  const dead = `127.0.0.1:${await freePort()}`;
  const results = await callAgents(
    [{ name: "a", address: agent.address }, { name: "d", address: dead }, {
      name: "b",
      address: agent.address,
    }],
    1000,
    (c, o) => c.listVIPs({}, o),
  );
  assert.deepEqual(results.map((r) => [r.target.name, "value" in r]), [["a", true], ["d", false], [
    "b",
    true,
  ]]);
});
