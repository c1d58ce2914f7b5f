/** What happened in the last 24 hours: entries written and edited, projects and tokens changed. */
import { api, type TodayItem } from "../api.ts";
import { perMinute, TimeChart } from "../charts.tsx";
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
  const [feed, history] = today.data ?? [];
  const chart = history && perMinute(history.buckets, ["remember", "search"], 24);
  return (
    <>
      <PageHeader title="Today" lead="Your activity in the last 24 hours, newest first.">
        <button type="button" class="btn" onClick={today.reload} disabled={today.loading}>Refresh</button>
      </PageHeader>
      {today.error && <ErrorNote error={today.error} onRetry={today.reload} />}
      {!today.data && today.loading && <Loading />}
      {chart && (
        <TimeChart
          title="Your writes and searches"
          start={chart.start}
          height={110}
          series={[{ name: "remember", values: chart.series.remember!, tone: 0 }, {
            name: "search",
            values: chart.series.search!,
            tone: 1,
          }]}
        />
      )}
      {feed && feed.items.length === 0 && (
        <Empty title="Nothing happened today yet">
          Entries you or your agents remember show up here. <a href={href("browse")}>Add one</a>.
        </Empty>
      )}
      {feed && feed.items.length > 0 && (
        <ol class="feed" aria-label="Activity">
          {feed.items.map((item, i) => <FeedItem key={`${item.id}-${i}`} item={item} />)}
        </ol>
      )}
    </>
  );
}

function FeedItem({ item }: { item: TodayItem }) {
  const isMemory = item.kind.startsWith("memory.");
  return (
    <li class="feed-item">
      <span class={`badge kind-${item.kind.split(".")[0]}`}>{KIND_LABEL[item.kind] ?? item.kind}</span>
      <span class="feed-summary">
        {isMemory
          ? <a href={href("browse", { id: item.id })}>{item.summary || item.id}</a>
          : item.summary || item.id}
      </span>
      <span class="muted small">
        <Time iso={item.at} />
      </span>
    </li>
  );
}
