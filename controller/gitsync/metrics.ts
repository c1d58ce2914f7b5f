/**
 * What gitsync-manager measures, in the Prometheus text format (internal/metrics): reconciles per
 * controller and result with their durations, work-queue depth, leadership, and the Revisions and
 * Applications it knows by phase and readiness (read from the informers' caches at scrape time).
 */
import { LATENCY_BUCKETS_MS, LatencyHistogram, PromText } from "../../internal/metrics/mod.ts";

export type ReconcileResultLabel = "success" | "requeue" | "error";

export interface GaugeSources {
  /** Revisions per status.phase. */
  revisionPhases(): Map<string, number>;
  /** Applications per Ready condition status (True, False, Unknown). */
  applicationsReady(): Map<string, number>;
  /** Keys waiting per controller. */
  queueDepth(): Map<string, number>;
  leader(): boolean;
}

export class ManagerMetrics {
  private readonly reconciles = new Map<string, number>();
  private readonly durations = new Map<string, LatencyHistogram>();
  private readonly receiver = new Map<string, number>();

  constructor(private readonly gauges: GaugeSources) {}

  /** Counts one reconcile of `controller` and its duration. */
  observe(controller: string, result: ReconcileResultLabel, ms: number): void {
    const key = `${controller}\0${result}`;
    this.reconciles.set(key, (this.reconciles.get(key) ?? 0) + 1);
    let h = this.durations.get(controller);
    if (!h) this.durations.set(controller, h = new LatencyHistogram());
    h.observe(ms);
  }

  /** Counts one answer of the push receiver (by result only: names would undo its uniform 401). */
  receiverResult(result: string): void {
    this.receiver.set(result, (this.receiver.get(result) ?? 0) + 1);
  }

  render(): string {
    const counts = [...this.reconciles].map(([key, value]) => {
      const [controller, result] = key.split("\0") as [string, string];
      return { labels: { controller, result }, value };
    });
    const seconds = LATENCY_BUCKETS_MS.map((ms) => ms / 1000);
    return new PromText()
      .counter("gitsync_reconcile_total", "Reconciles by controller and result.", counts)
      .histogram(
        "gitsync_reconcile_duration_seconds",
        "How long reconciles took, by controller.",
        [...this.durations].map(([controller, h]) => ({
          labels: { controller },
          bounds: seconds,
          cumulative: h.cumulative(),
          sum: h.sumMs / 1000,
        })),
      )
      .counter(
        "gitsync_webhook_receiver_requests_total",
        "Push receiver answers by result.",
        [...this.receiver].map(([result, value]) => ({ labels: { result }, value })),
      )
      .gauge(
        "gitsync_workqueue_depth",
        "Keys waiting to be reconciled, by controller.",
        [...this.gauges.queueDepth()].map(([controller, value]) => ({ labels: { controller }, value })),
      )
      .gauge("gitsync_leader", "1 while this replica holds the Lease (or runs without leader election).", [
        { value: this.gauges.leader() ? 1 : 0 },
      ])
      .gauge(
        "gitsync_revisions",
        "Revisions by phase.",
        [...this.gauges.revisionPhases()].map(([phase, value]) => ({ labels: { phase }, value })),
      )
      .gauge(
        "gitsync_applications",
        "Applications by Ready condition status.",
        [...this.gauges.applicationsReady()].map(([ready, value]) => ({ labels: { ready }, value })),
      )
      .toString();
  }
}
