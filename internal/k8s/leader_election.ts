/**
 * Leader election on a coordination.k8s.io/v1 Lease, as client-go's leaderelection does it: a
 * candidate takes the Lease when it is free or its holder has not renewed it for a lease duration
 * (measured on the candidate's own clock, from when it last saw the record change, so clock skew
 * between replicas does not matter), renews it every retry period while leading, and steps down when
 * it could not renew within the renew deadline. Writes carry the resourceVersion read, so two
 * candidates never both win. On a clean stop the leader releases the Lease, and another replica
 * takes over at its next retry instead of after a lease duration.
 *
 * @example
 * await runLeaderElection(client, {
 *   namespace: "gitsync-system", name: "gitsync-manager", identity: `${hostname()}_${randomUUID()}`,
 *   onStartedLeading: (leading) => runControllers(leading),   // `leading` aborts when leadership ends
 * }, stop.signal);
 */
import type { KubeClient } from "./client.ts";
import { sleep } from "../async/sleep.ts";
import { KubeApiError } from "./errors.ts";

export interface LeaderElectionOptions {
  namespace: string;
  name: string;
  /** Unique per replica (host name plus a random suffix). */
  identity: string;
  /** How long a Lease is valid without a renewal; default 15 s. */
  leaseDurationMs?: number;
  /** A leader that could not renew for this long steps down; default 10 s. */
  renewDeadlineMs?: number;
  /** How often candidates try and leaders renew; default 2 s. */
  retryPeriodMs?: number;
  /** Leading starts; `leading` aborts when it ends (lost Lease or stop). */
  onStartedLeading: (leading: AbortSignal) => void;
  /** Leading ended. */
  onStoppedLeading?: () => void;
  /** Another holder was seen (or the Lease is free: ""). */
  onNewLeader?: (identity: string) => void;
}

interface Lease {
  metadata: { name: string; namespace: string; resourceVersion?: string };
  spec: {
    holderIdentity?: string;
    leaseDurationSeconds?: number;
    acquireTime?: string;
    renewTime?: string;
    leaseTransitions?: number;
  };
}

/** MicroTime, the Lease's time format: RFC 3339 with microseconds. */
const microTime = (d: Date) => d.toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");

/** Runs the election until `signal` aborts; resolves after stepping down and releasing the Lease. */
export async function runLeaderElection(
  client: KubeClient,
  options: LeaderElectionOptions,
  signal: AbortSignal,
): Promise<void> {
  const leaseMs = options.leaseDurationMs ?? 15_000;
  const deadlineMs = options.renewDeadlineMs ?? 10_000;
  const retryMs = options.retryPeriodMs ?? 2_000;
  const path = `/apis/coordination.k8s.io/v1/namespaces/${options.namespace}/leases`;
  let observed: { record: string; at: number } | undefined;
  let lastHolder: string | undefined;

  /** One attempt to take or renew the Lease; true when we hold it afterwards. */
  const tryAcquireOrRenew = async (): Promise<boolean> => {
    const now = new Date();
    let lease: Lease | undefined;
    try {
      lease = await client.request<Lease>({ path: `${path}/${options.name}` });
    } catch (err) {
      if (!(err instanceof KubeApiError && err.status === 404)) throw err;
    }
    const spec = {
      holderIdentity: options.identity,
      leaseDurationSeconds: Math.ceil(leaseMs / 1000),
      acquireTime: microTime(now),
      renewTime: microTime(now),
      leaseTransitions: 0,
    };
    if (!lease) {
      await client.request({
        method: "POST",
        path,
        body: { apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: { name: options.name }, spec },
      });
      return true;
    }
    const holder = lease.spec.holderIdentity ?? "";
    const record = JSON.stringify(lease.spec);
    if (observed?.record !== record) observed = { record, at: Date.now() };
    if (holder !== lastHolder) {
      lastHolder = holder;
      if (holder !== options.identity) options.onNewLeader?.(holder);
    }
    const held = holder !== "" && holder !== options.identity;
    const durationMs = (lease.spec.leaseDurationSeconds ?? Math.ceil(leaseMs / 1000)) * 1000;
    if (held && observed.at + durationMs > Date.now()) return false;
    const mine = holder === options.identity;
    await client.request({
      method: "PUT",
      path: `${path}/${options.name}`,
      body: {
        ...lease,
        spec: {
          ...spec,
          acquireTime: mine ? lease.spec.acquireTime ?? spec.acquireTime : spec.acquireTime,
          leaseTransitions: (lease.spec.leaseTransitions ?? 0) + (mine ? 0 : 1),
        },
      },
    });
    return true;
  };

  const attempt = async () => {
    try {
      return await tryAcquireOrRenew();
    } catch {
      return false; // A conflict (someone else wrote first) or an unreachable server: not ours now.
    }
  };

  while (!signal.aborted) {
    // Candidate: try every retry period until we hold the Lease.
    if (!(await attempt())) {
      await sleep(retryMs, signal);
      continue;
    }
    lastHolder = options.identity;
    const leading = new AbortController();
    options.onStartedLeading(leading.signal);
    // Leader: renew every retry period; step down when no renewal succeeded within the deadline.
    let renewedAt = Date.now();
    while (!signal.aborted) {
      await sleep(retryMs, signal);
      if (signal.aborted) break;
      if (await attempt()) renewedAt = Date.now();
      else if (Date.now() - renewedAt > deadlineMs) break;
    }
    leading.abort();
    options.onStoppedLeading?.();
    if (signal.aborted) await release(client, path, options.name, options.identity);
  }
}

/** Gives the Lease up so that another replica can take it at once. */
async function release(client: KubeClient, path: string, name: string, identity: string): Promise<void> {
  try {
    const lease = await client.request<Lease>({ path: `${path}/${name}` });
    if (lease.spec.holderIdentity !== identity) return;
    await client.request({
      method: "PUT",
      path: `${path}/${name}`,
      body: { ...lease, spec: { ...lease.spec, holderIdentity: "", leaseDurationSeconds: 1 } },
    });
  } catch {
    // Nothing to do: the Lease expires by itself.
  }
}
