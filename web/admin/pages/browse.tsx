/**
 * Browse memory: newest first, page by page, or search; filter by project and source type; open an
 * entry to read, edit or forget it; add one. The filters live in the URL, so a view can be shared.
 */
import { useEffect, useState } from "preact/hooks";
import { api, type Entry, type Project, type UpdateBody } from "../api.ts";
import {
  Confirm,
  Dialog,
  Empty,
  ErrorNote,
  Field,
  Loading,
  Notice,
  PageHeader,
  Time,
  useAction,
  useLoad,
} from "../components.tsx";
import { href, navigate, type Route } from "../router.ts";

const PAGE_SIZE = 20;
const SOURCE_TYPES = ["chat", "email", "code-review", "doc", "inference", "observation", "system", "manual"];

export function BrowsePage({ route }: { route: Route }) {
  const q = route.params.get("q") ?? "";
  const project = route.params.get("project") ?? "";
  const sourceType = route.params.get("source_type") ?? "";
  const cursor = route.params.get("cursor") ?? "";
  // The cursors of the pages before this one ("_" for the first), so Newer works from any link.
  const prev = (route.params.get("prev") ?? "").split(".").filter(Boolean);
  const page = prev.length + 1;
  const openId = route.params.get("id") ?? "";

  const projects = useLoad(() => api.projects(), []);
  const projectNames = new Map((projects.data?.projects ?? []).map((p) => [p.id, p.name]));
  const entries = useLoad(async () => {
    if (q) {
      const r = await api.search({ query: q, project: project || undefined, limit: 50 });
      const results = sourceType ? r.results.filter((e) => e.source_type === sourceType) : r.results;
      return { entries: results as Entry[], nextCursor: null as string | null, degraded: r.degraded };
    }
    const r = await api.recent({
      limit: PAGE_SIZE,
      cursor: cursor || undefined,
      source_type: sourceType || undefined,
      project: project || undefined,
    });
    return { entries: r.entries as Entry[], nextCursor: r.nextCursor, degraded: false };
  }, [q, project, sourceType, cursor]);

  const [adding, setAdding] = useState(false);
  const [notice, setNotice] = useState<string>();
  const [draft, setDraft] = useState({ q, sourceType });
  // Back, forward and links change the URL under the form: the fields follow it.
  useEffect(() => setDraft({ q, sourceType }), [q, sourceType]);

  const go = (params: Record<string, string | number | undefined>, replace = false) =>
    navigate(href("browse", { q, project, source_type: sourceType, ...params }), replace);

  const applyFilters = (e: Event) => {
    e.preventDefault();
    go({
      q: draft.q.trim(),
      source_type: draft.sourceType.trim(),
      cursor: undefined,
      prev: undefined,
      id: undefined,
    });
  };

  const list = entries.data?.entries ?? [];
  return (
    <>
      <PageHeader
        title="Browse"
        lead="Everything you can reach: your own entries and those of your projects."
      >
        <button type="button" class="btn btn-primary" onClick={() => setAdding(true)}>Add entry</button>
      </PageHeader>
      <form class="filters card" role="search" onSubmit={applyFilters}>
        <Field label="Search">
          <input
            type="search"
            name="q"
            placeholder="Words, “a phrase”, -exclude"
            value={draft.q}
            onInput={(e) => setDraft({ ...draft, q: e.currentTarget.value })}
          />
        </Field>
        <Field label="Project">
          <select
            name="project"
            value={project}
            onChange={(e) =>
              go({ project: e.currentTarget.value, cursor: undefined, prev: undefined, id: undefined })}
          >
            <option value="">Personal + active project</option>
            {(projects.data?.projects ?? []).map((p) => <option key={p.id} value={p.id}>{p.name}</option>)}
          </select>
        </Field>
        <Field label="Source type">
          <input
            name="source_type"
            list="source-types"
            value={draft.sourceType}
            onInput={(e) => setDraft({ ...draft, sourceType: e.currentTarget.value })}
          />
        </Field>
        <datalist id="source-types">{SOURCE_TYPES.map((s) => <option key={s} value={s} />)}</datalist>
        <div class="filter-actions">
          <button type="submit" class="btn">Apply</button>
          {(q || project || sourceType) && (
            <a
              class="btn btn-link"
              href={href("browse")}
              onClick={() => setDraft({ q: "", sourceType: "" })}
            >
              Clear
            </a>
          )}
        </div>
      </form>
      {notice && <Notice tone="success">{notice}</Notice>}
      {entries.data?.degraded && (
        <Notice tone="warn">
          Search ran with one of its two tiers failing, so results may be incomplete.
        </Notice>
      )}
      {entries.error && <ErrorNote error={entries.error} onRetry={entries.reload} />}
      {!entries.data && entries.loading && <Loading />}
      {entries.data && list.length === 0 && (
        <Empty title={q ? "Nothing matches that search" : "No entries here yet"}>
          {q ? "Try fewer or different words." : "Add one, or connect an agent with an API token."}
        </Empty>
      )}
      {list.length > 0 && (
        <ul class="entries" aria-label="Entries" aria-busy={entries.loading}>
          {list.map((e) => (
            <li key={e.id} class="entry">
              <a
                class="entry-link"
                href={href("browse", {
                  q,
                  project,
                  source_type: sourceType,
                  cursor,
                  prev: prev.join(".") || undefined,
                  id: e.id,
                })}
              >
                <span class="entry-content">{e.content}</span>
              </a>
              <div class="entry-meta muted small">
                {e.source_type && <span class="badge">{e.source_type}</span>}
                <span>{e.project ? projectNames.get(e.project) ?? "project" : "personal"}</span>
                <Time iso={e.created_at} />
                {e.score !== undefined && <span>score {e.score.toFixed(2)}</span>}
                <a href={href("graph", { id: e.id })}>Graph</a>
              </div>
            </li>
          ))}
        </ul>
      )}
      {!q && entries.data && (page > 1 || entries.data.nextCursor) && (
        <nav class="pager" aria-label="Pages">
          <button
            type="button"
            class="btn"
            disabled={page <= 1}
            onClick={() => {
              const before = prev.at(-1);
              go({
                cursor: before === "_" ? undefined : before,
                prev: prev.slice(0, -1).join(".") || undefined,
                id: undefined,
              });
            }}
          >
            Newer
          </button>
          <span class="muted">Page {page}</span>
          <button
            type="button"
            class="btn"
            disabled={!entries.data.nextCursor}
            onClick={() =>
              go({
                cursor: entries.data!.nextCursor!,
                prev: [...prev, cursor || "_"].join("."),
                id: undefined,
              })}
          >
            Older
          </button>
        </nav>
      )}
      {q && list.length > 0 && <p class="muted small">Showing the best {list.length} matches.</p>}
      <AddEntry
        open={adding}
        projects={projects.data?.projects ?? []}
        defaultProject={project}
        onClose={() => setAdding(false)}
        onAdded={async (message) => {
          setAdding(false);
          setNotice(message);
          await entries.reload();
        }}
      />
      <EntryDialog
        id={openId}
        projectNames={projectNames}
        onClose={() => go({ cursor, prev: prev.join(".") || undefined, id: undefined }, true)}
        onChanged={async (message) => {
          setNotice(message);
          await entries.reload();
        }}
      />
    </>
  );
}

function AddEntry(props: {
  open: boolean;
  projects: Project[];
  defaultProject: string;
  onClose: () => void;
  onAdded: (message: string) => Promise<void>;
}) {
  const [content, setContent] = useState("");
  const [sourceType, setSourceType] = useState("manual");
  const [project, setProject] = useState<string>();
  const action = useAction();
  const submit = async (e: Event) => {
    e.preventDefault();
    const target = project ?? props.defaultProject;
    const r = await action.run(() =>
      api.remember({ content, source_type: sourceType || undefined, project: target || undefined })
    );
    if (!r) return;
    if (r.id === null) {
      action.setError(
        `Not saved: ${r.rejected ?? "rejected"}. Write a complete fact of at least 12 characters.`,
      );
      return;
    }
    setContent("");
    await props.onAdded(
      r.deduplicated ? "That entry already existed; nothing new was stored." : "Remembered.",
    );
  };
  return (
    <Dialog title="Add entry" open={props.open} onClose={props.onClose} wide>
      <form class="dialog-body stack" onSubmit={submit}>
        <ErrorNote error={action.error} />
        <Field label="Content" hint="One durable fact per entry.">
          <textarea
            name="content"
            rows={5}
            required
            maxLength={8000}
            value={content}
            onInput={(e) => setContent(e.currentTarget.value)}
          />
        </Field>
        <div class="row">
          <Field label="Project">
            <select
              name="project"
              value={project ?? props.defaultProject}
              onChange={(e) => setProject(e.currentTarget.value)}
            >
              <option value="">Personal (or your active project)</option>
              {props.projects.map((p) => <option key={p.id} value={p.id}>{p.name}</option>)}
            </select>
          </Field>
          <Field label="Source type">
            <input
              name="source_type"
              list="source-types"
              value={sourceType}
              onInput={(e) => setSourceType(e.currentTarget.value)}
            />
          </Field>
        </div>
        <div class="dialog-actions">
          <button type="button" class="btn" onClick={props.onClose}>Cancel</button>
          <button type="submit" class="btn btn-primary" disabled={action.busy}>
            {action.busy ? "Saving…" : "Remember"}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

function EntryDialog(props: {
  id: string;
  projectNames: Map<string, string>;
  onClose: () => void;
  onChanged: (message: string) => Promise<void>;
}) {
  const entry = useLoad(() => (props.id ? api.entry(props.id) : Promise.resolve(undefined)), [props.id]);
  const [editing, setEditing] = useState(false);
  const [forgetting, setForgetting] = useState(false);
  const e = entry.data;
  const close = () => {
    setEditing(false);
    props.onClose();
  };
  return (
    <>
      <Dialog title={editing ? "Edit entry" : "Entry"} open={!!props.id} onClose={close} wide>
        {entry.error && (
          <div class="dialog-body">
            <ErrorNote error={entry.error} />
          </div>
        )}
        {!e && entry.loading && (
          <div class="dialog-body">
            <Loading />
          </div>
        )}
        {e && !editing && (
          <div class="dialog-body stack">
            <p class="entry-full">{e.content}</p>
            <dl class="kv">
              <div>
                <dt>Project</dt>
                <dd>{e.project ? props.projectNames.get(e.project) ?? e.project : "personal"}</dd>
              </div>
              <div>
                <dt>Source type</dt>
                <dd>{e.source_type ?? "—"}</dd>
              </div>
              <div>
                <dt>Captured from</dt>
                <dd>{e.captured_from || "—"}</dd>
              </div>
              <div>
                <dt>Confidence</dt>
                <dd>{e.confidence}</dd>
              </div>
              <div>
                <dt>Hits</dt>
                <dd>{e.hit_count}</dd>
              </div>
              <div>
                <dt>Namespace</dt>
                <dd>{e.namespace}</dd>
              </div>
              <div>
                <dt>Created</dt>
                <dd>
                  <Time iso={e.created_at} />
                </dd>
              </div>
              <div>
                <dt>Updated</dt>
                <dd>
                  <Time iso={e.updated_at} />
                </dd>
              </div>
              <div>
                <dt>Id</dt>
                <dd>
                  <code>{e.id}</code>
                </dd>
              </div>
            </dl>
            {Object.keys(e.metadata ?? {}).length > 0 && (
              <pre class="code">{JSON.stringify(e.metadata, null, 2)}</pre>
            )}
            <div class="dialog-actions">
              <a class="btn" href={href("graph", { id: e.id })}>Open graph</a>
              <button type="button" class="btn" onClick={() => setEditing(true)}>Edit</button>
              <button type="button" class="btn btn-danger" onClick={() => setForgetting(true)}>Forget</button>
            </div>
          </div>
        )}
        {e && editing && (
          <EditEntry
            entry={e}
            onCancel={() => setEditing(false)}
            onSaved={async () => {
              setEditing(false);
              await entry.reload();
              await props.onChanged("Saved.");
            }}
          />
        )}
      </Dialog>
      <Confirm
        open={forgetting}
        title="Forget this entry?"
        confirmLabel="Forget"
        onClose={() => setForgetting(false)}
        onConfirm={async () => {
          await api.forget(props.id);
          setForgetting(false);
          close();
          await props.onChanged("Forgotten.");
        }}
      >
        <p>The entry and its graph links are deleted for everyone who could see it. This cannot be undone.</p>
      </Confirm>
    </>
  );
}

function EditEntry(props: { entry: Entry; onCancel: () => void; onSaved: () => Promise<void> }) {
  const e = props.entry;
  const [form, setForm] = useState({
    content: e.content,
    source_type: e.source_type ?? "",
    captured_from: e.captured_from ?? "",
    confidence: String(e.confidence),
    metadata: JSON.stringify(e.metadata ?? {}, null, 2),
  });
  const action = useAction();
  const set = (k: keyof typeof form) => (ev: Event) =>
    setForm({ ...form, [k]: (ev.currentTarget as HTMLInputElement).value });
  const submit = async (ev: Event) => {
    ev.preventDefault();
    let metadata: UpdateBody["metadata"];
    try {
      metadata = JSON.parse(form.metadata || "{}");
      if (!metadata || typeof metadata !== "object" || Array.isArray(metadata)) throw new Error();
    } catch {
      action.setError('Metadata must be a JSON object, like {"topic": "billing"}.');
      return;
    }
    const confidence = Number(form.confidence);
    if (!(confidence >= 0 && confidence <= 1)) {
      action.setError("Confidence must be a number from 0 to 1.");
      return;
    }
    const saved = await action.run(() =>
      api.updateEntry(e.id, {
        content: form.content,
        source_type: form.source_type,
        captured_from: form.captured_from,
        confidence,
        metadata,
      })
    );
    if (saved) await props.onSaved();
  };
  return (
    <form class="dialog-body stack" onSubmit={submit}>
      <ErrorNote error={action.error} />
      <Field label="Content">
        <textarea
          name="content"
          rows={5}
          required
          maxLength={8000}
          value={form.content}
          onInput={set("content")}
        />
      </Field>
      <div class="row">
        <Field label="Source type">
          <input
            name="source_type"
            list="source-types"
            value={form.source_type}
            onInput={set("source_type")}
          />
        </Field>
        <Field label="Captured from">
          <input name="captured_from" value={form.captured_from} onInput={set("captured_from")} />
        </Field>
        <Field label="Confidence (0–1)">
          <input
            name="confidence"
            type="number"
            min={0}
            max={1}
            step={0.05}
            value={form.confidence}
            onInput={set("confidence")}
          />
        </Field>
      </div>
      <Field label="Metadata (JSON)">
        <textarea name="metadata" class="mono" rows={4} value={form.metadata} onInput={set("metadata")} />
      </Field>
      <div class="dialog-actions">
        <button type="button" class="btn" onClick={props.onCancel}>Cancel</button>
        <button type="submit" class="btn btn-primary" disabled={action.busy}>
          {action.busy ? "Saving…" : "Save"}
        </button>
      </div>
    </form>
  );
}
