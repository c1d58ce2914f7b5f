/** Projects: create, share and unshare by email, delete with confirmation, set the active one. */
import { useState } from "preact/hooks";
import { api, type Project } from "../api.ts";
import {
  Confirm,
  Empty,
  ErrorNote,
  Field,
  Loading,
  Notice,
  PageHeader,
  Time,
  useAction,
  useListAction,
  useLoad,
} from "../components.tsx";
import { href } from "../router.ts";

export function ProjectsPage() {
  const projects = useLoad(() => api.projects(), []);
  const [name, setName] = useState("");
  const [open, setOpen] = useState<string>();
  const [deleting, setDeleting] = useState<Project>();
  const action = useListAction(projects.reload);
  const { act: run, done, setDone } = action;

  const create = async (e: Event) => {
    e.preventDefault();
    const n = name.trim();
    if (await run(() => api.createProject(n), `Created project “${n}”.`)) setName("");
  };

  const list = projects.data?.projects ?? [];
  return (
    <>
      <PageHeader
        title="Projects"
        lead="A project is a shared memory space. The active project is where your writes go when a call names none."
      />
      <form class="card inline-form" onSubmit={create}>
        <Field label="New project name">
          <input
            name="project-name"
            required
            maxLength={100}
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
          />
        </Field>
        <button type="submit" class="btn btn-primary" disabled={action.busy}>Create project</button>
      </form>
      <ErrorNote error={action.error} />
      {done && <Notice tone="success">{done}</Notice>}
      {projects.error && <ErrorNote error={projects.error} onRetry={projects.reload} />}
      {!projects.data && projects.loading && <Loading />}
      {projects.data && list.length === 0 && (
        <Empty title="No projects yet">Everything you remember is personal until you create a project.</Empty>
      )}
      <ul class="project-list">
        {list.map((p) => (
          <li key={p.id} class="card project" data-project={p.name}>
            <div class="project-head">
              <div>
                <h2 class="card-title">
                  {p.name}
                  {p.active && <span class="badge badge-ok">active</span>}
                  <span class="badge">{p.role}</span>
                </h2>
                <p class="muted small">
                  {p.memberCount} {p.memberCount === 1 ? "person" : "people"} · owner {p.owner.email}{" "}
                  · created <Time iso={p.createdAt} />
                </p>
              </div>
              <div class="row-actions">
                <a class="btn btn-small" href={href("browse", { project: p.id })}>Browse</a>
                {p.active
                  ? (
                    <button
                      type="button"
                      class="btn btn-small"
                      onClick={() => run(() => api.clearActive(), `“${p.name}” is no longer active.`)}
                    >
                      Deactivate
                    </button>
                  )
                  : (
                    <button
                      type="button"
                      class="btn btn-small"
                      onClick={() =>
                        run(() => api.setActive(p.id), `“${p.name}” is now your active project.`)}
                    >
                      Set active
                    </button>
                  )}
                <button
                  type="button"
                  class="btn btn-small"
                  aria-expanded={open === p.id}
                  onClick={() => setOpen(open === p.id ? undefined : p.id)}
                >
                  Members
                </button>
                {p.role === "owner" && (
                  <button
                    type="button"
                    class="btn btn-small btn-danger"
                    onClick={() => setDeleting(p)}
                  >
                    Delete
                  </button>
                )}
              </div>
            </div>
            {open === p.id && <Members project={p} onChanged={projects.reload} />}
          </li>
        ))}
      </ul>
      <Confirm
        open={!!deleting}
        title={`Delete “${deleting?.name ?? ""}”?`}
        confirmLabel="Delete project"
        onClose={() => setDeleting(undefined)}
        onConfirm={async () => {
          const p = deleting!;
          await api.deleteProject(p.id);
          setDeleting(undefined);
          setDone(`Deleted “${p.name}” and its memory.`);
          await projects.reload();
        }}
      >
        <p>
          This deletes the project{" "}
          <strong>and every entry in it</strong>, including what members stored. Members lose access. This
          cannot be undone.
        </p>
      </Confirm>
    </>
  );
}

function Members(props: { project: Project; onChanged: () => Promise<void> }) {
  const p = props.project;
  const members = useLoad(() => api.members(p.id), [p.id]);
  const [email, setEmail] = useState("");
  const action = useAction();
  const owner = p.role === "owner";

  const share = async (e: Event) => {
    e.preventDefault();
    const added = await action.run(() => api.share(p.id, email.trim()));
    if (added) {
      setEmail("");
      await members.reload();
      await props.onChanged();
    }
  };
  const unshare = async (who: string) => {
    const ok = await action.run(async () => {
      await api.unshare(p.id, who);
      return true;
    });
    if (ok) {
      await members.reload();
      await props.onChanged();
    }
  };

  return (
    <div class="members">
      <ErrorNote error={action.error} />
      {members.error && <ErrorNote error={members.error} onRetry={members.reload} />}
      {!members.data && members.loading && <Loading />}
      {members.data && (
        <ul class="member-list" aria-label={`Members of ${p.name}`}>
          {members.data.members.map((m) => (
            <li key={m.userId}>
              <span>{m.email}</span>
              <span class="badge">{m.role}</span>
              {owner && m.role !== "owner" && (
                <button
                  type="button"
                  class="btn btn-small"
                  onClick={() => unshare(m.email)}
                  aria-label={`Remove ${m.email}`}
                >
                  Remove
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      {owner && (
        <form class="inline-form" onSubmit={share}>
          <Field label="Share with (exact email)">
            <input
              type="email"
              name="share-email"
              required
              value={email}
              onInput={(e) => setEmail(e.currentTarget.value)}
            />
          </Field>
          <button type="submit" class="btn" disabled={action.busy}>Share</button>
        </form>
      )}
    </div>
  );
}
