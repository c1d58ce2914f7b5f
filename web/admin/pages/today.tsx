/** What happened in the last 24 hours: entries written and edited, projects and tokens changed. */
import { useState } from "preact/hooks";
import { api, authMode, type TodayItem } from "../api.ts";
import { activitySeries, chartRange, RangePicker } from "../charts.tsx";
import { LineChart } from "../../shared/line_chart.tsx";
import { Empty, ErrorNote, Loading, PageHeader, Time, useLoad } from "../components.tsx";
import { href } from "../router.ts";

const KIND_LABEL: Record<string, string> = {
  "memory.created": "Remembered",
  "memory.updated": "Edited",
  "token.create": "Token created",
  "token.delete": "Token revoked",
  "token.rotate": "Token rotated",
  "token.revoke": "Token revoked",
  "project.create": "Project created",
  "project.delete": "Project deleted",
  "project.share": "Project shared",
  "project.unshare": "Project unshared",
  "project.activate": "Project activated",
  "project.deactivate": "Project deactivated",
};

export function TodayPage() {
  const today = useLoad(() => Promise.all([api.today(24), api.myHistory(24)]), []);
  // Audit items name their target by id; show names where they are still known.
  const names = useLoad(async () => {
    const [projects, tokens] = await Promise.all([
      api.projects().catch(() => ({ projects: [] })),
      // Only user mode has personal tokens (elsewhere the route answers 404).
      authMode() === "user" ? api.tokens().catch(() => ({ tokens: [] })) : { tokens: [] },
    ]);
    return new Map<string, string>([
      ...projects.projects.map((p) => [p.id, `“${p.name}”`] as [string, string]),
      ...tokens.tokens.map((t) => [t.tokenHash, `“${t.label}”`] as [string, string]),
    ]);
  }, []);
  const [feed, history] = today.data ?? [];
  const [hours, setHours] = useState(0);
  const range = history && chartRange(history.buckets, hours);
  return (
    <>
      <PageHeader title="Today" lead="Your activity in the last 24 hours, newest first.">
        <button type="button" class="btn" onClick={today.reload} disabled={today.loading}>Refresh</button>
      </PageHeader>
      {today.error && <ErrorNote error={today.error} onRetry={today.reload} />}
      {!today.data && today.loading && <Loading />}
      {history && range && (
        <section class="section" aria-label="Your activity per minute">
          <RangePicker hours={hours} onChange={setHours} />
          <LineChart
            title="Your writes and searches per minute"
            start={range.start}
            end={range.end}
            height={130}
            series={activitySeries(history.buckets, [
              { kind: "remember", label: "Writes" },
              { kind: "search", label: "Searches" },
            ], range)}
          />
        </section>
      )}
      {feed && feed.items.length === 0 && (
        <Empty title="Nothing happened today yet">
          Entries you or your agents remember show up here. <a href={href("browse")}>Add one</a>.
        </Empty>
      )}
      {feed && feed.items.length > 0 && (
        <ol class="feed" aria-label="Activity">
          {feed.items.map((item, i) => <FeedItem key={`${item.id}-${i}`} item={item} names={names.data} />)}
        </ol>
      )}
    </>
  );
}

function describe(item: TodayItem, names: Map<string, string> | undefined): string {
  if (item.summary) return item.summary;
  const known = names?.get(item.id);
  if (known) return known;
  if (item.kind.startsWith("token.")) return `token ${item.id.slice(0, 12)}…`;
  if (item.kind.startsWith("project.")) return item.kind === "project.delete" ? "a deleted project" : item.id;
  return item.id;
}

function FeedItem({ item, names }: { item: TodayItem; names?: Map<string, string> }) {
  const isMemory = item.kind.startsWith("memory.");
  const text = describe(item, names);
  return (
    <li class="feed-item">
      {/* What happened, not how it went: a category, in the neutral accent (status colours mean status). */}
      <span class="badge">{KIND_LABEL[item.kind] ?? item.kind}</span>
      <span class="feed-summary">
        {isMemory
          ? <a href={href("browse", { id: item.id })}>{text}</a>
          : item.kind.startsWith("project.") && item.kind !== "project.delete"
          ? <a href={href("projects")}>{text}</a>
          : text}
      </span>
      <span class="muted small">
        <Time iso={item.at} />
      </span>
    </li>
  );
}
