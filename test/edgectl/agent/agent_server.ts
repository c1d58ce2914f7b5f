/**
 * A test agent: the AgentService of proto/edgeproxy/agent/v1/agent.proto served over gRPC (HTTP/2
 * cleartext) on 127.0.0.1, with a fixed snapshot and a small in-memory cache the purge RPC really
 * empties, so tests see the effect of `edgectl cache purge` in a later `cache stats`.
 * `delayMs` makes every call slow, to exercise edgectl's --timeout.
 */
import * as http2 from "node:http2";
import type { AddressInfo } from "node:net";
import { create } from "@bufbuild/protobuf";
import type { ConnectRouter } from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import {
  AgentService,
  BackendSchema,
  GetCacheStatsResponseSchema,
  GetConfigResponseSchema,
  ListBackendsResponseSchema,
  ListVIPsResponseSchema,
  PurgeCacheResponseSchema,
  VipSchema,
} from "../../../internal/proto/edgeproxy/agent/v1/agent_pb.ts";

export interface CacheEntry {
  namespace: string;
  route: string;
  hostname: string;
  size: number;
}

export interface TestAgentOptions {
  node: string;
  delayMs?: number;
  cache?: CacheEntry[];
}

export interface TestAgent {
  address: string;
  cache: CacheEntry[];
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function globMatch(pattern: string, text: string): boolean {
  const re = new RegExp(
    `^${pattern.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*").replace(/\?/g, ".")}$`,
  );
  return re.test(text);
}

export async function startTestAgent(options: TestAgentOptions): Promise<TestAgent> {
  const cache = [...(options.cache ?? [])];
  const counters = { hits: 120, misses: 30, evictions: 2 };
  const wait = () => options.delayMs ? sleep(options.delayMs) : Promise.resolve();
  const routes = (router: ConnectRouter) =>
    router.service(AgentService, {
      async getConfig() {
        await wait();
        return create(GetConfigResponseSchema, {
          node: options.node,
          agentVersion: "v0.9.1",
          configVersion: "42",
          appliedAt: "2026-11-25T10:00:00Z",
          gateways: [{
            namespace: "shop",
            name: "main",
            listeners: [{ name: "https", port: 443, protocol: "HTTPS", hostnames: ["shop.example.com"] }],
          }],
          routes: [{ namespace: "shop", name: "web", hostnames: ["shop.example.com"], ruleCount: 2 }],
          backendCount: 2,
          vipCount: 1,
        });
      },
      async listBackends() {
        await wait();
        return create(ListBackendsResponseSchema, {
          backends: [
            create(BackendSchema, {
              namespace: "shop",
              name: "web",
              lbPolicy: "RoundRobin",
              endpoints: [
                { address: "10.1.0.4", port: 8080, healthy: true },
                { address: "10.1.0.5", port: 8080, healthy: false },
              ],
            }),
            create(BackendSchema, {
              namespace: "shop",
              name: "api",
              lbPolicy: "LeastConn",
              endpoints: [{ address: "10.1.0.9", port: 9000, healthy: true }],
            }),
          ],
        });
      },
      async listVIPs() {
        await wait();
        return create(ListVIPsResponseSchema, {
          vips: [create(VipSchema, {
            name: "public",
            address: "192.0.2.10",
            mode: "L2",
            state: "Active",
            interface: "eth0",
          })],
        });
      },
      async getCacheStats(req) {
        await wait();
        const entries = cache.filter((e) => !req.namespace || e.namespace === req.namespace);
        return create(GetCacheStatsResponseSchema, {
          entries: BigInt(entries.length),
          sizeBytes: BigInt(entries.reduce((n, e) => n + e.size, 0)),
          maxSizeBytes: 1048576n,
          hits: BigInt(counters.hits),
          misses: BigInt(counters.misses),
          evictions: BigInt(counters.evictions),
        });
      },
      async purgeCache(req) {
        await wait();
        const sel = req.selector;
        const drop = (e: CacheEntry) =>
          sel.case === "all"
            ? sel.value
            : sel.case === "hostnamePattern"
            ? globMatch(sel.value, e.hostname)
            : sel.case === "route"
            ? `${e.namespace}/${e.route}` === sel.value
            : false;
        const before = cache.length;
        for (let i = cache.length - 1; i >= 0; i--) if (drop(cache[i]!)) cache.splice(i, 1);
        return create(PurgeCacheResponseSchema, { purged: BigInt(before - cache.length) });
      },
    });
  const server = http2.createServer(connectNodeAdapter({ routes }));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    address: `127.0.0.1:${port}`,
    cache,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
