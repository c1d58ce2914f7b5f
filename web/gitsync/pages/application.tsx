import { approveCommand, Conditions, Load, PhaseBadge, ReadyBadge, short } from "../components.tsx";
import { DataTable } from "../../shared/data_table.tsx";
import { CopyCommand, PageHeader } from "../../shared/ui.tsx";
import { useLoad } from "../../shared/use_load.ts";
import { api } from "../api.ts";
import { link } from "../router.ts";
import type { Application, ApplicationAnswer, Revision, RevisionSummary } from "../types.ts";
import { ready } from "./applications.tsx";

/**
 * Where the Application stands, at the top of its page: the Ready badge (with the desired Revision's
 * phase while Ready is unknown), why it failed (from the Revision, not only on the Revision's page),
 * and what to run when it waits for approval.
 */
function Standing({ app, revisions }: { app: Application; revisions: RevisionSummary[] }) {
  const ns = app.metadata.namespace;
  const condition = ready(app);
  const desired = revisions.find((r) => r.name === app.status?.desiredRevision);
  const failed = desired?.phase === "Failed" || condition?.status === "False";
  const revision = useLoad(
    () => (failed && desired?.name
      ? api<Revision>(`/api/revisions/${ns}/${desired.name}`)
      : Promise.resolve(undefined)),
    [ns, desired?.name, failed],
  );
  const failure = revision.data?.status?.failure;
  const unknown = condition?.status !== "True" && condition?.status !== "False";
  return (
    <div class="standing" data-testid="standing">
      <p class="standing-line">
        <ReadyBadge ready={condition} desiredPhase={unknown ? desired?.phase : undefined} />{" "}
        <span class="muted">{condition?.message ?? "The controller has not reported on it yet."}</span>
      </p>
      {failure && desired && (
        <div class="alert alert-error" role="alert">
          <span>
            Revision <a href={link("revisions", ns, desired.name ?? "")}>{desired.name}</a> failed:{" "}
            <strong>{failure.reason}</strong>: {failure.message}
          </span>
        </div>
      )}
      {desired?.phase === "AwaitingApproval" && desired.planDigest && !desired.approved && (
        <div class="alert alert-warn">
          <p>
            Revision <a href={link("revisions", ns, desired.name ?? "")}>{desired.name}</a>{" "}
            waits for approval of its plan. Approve it with:
          </p>
          <CopyCommand
            command={approveCommand(app.metadata.name, ns, desired.planDigest)}
            label="Copy the approve command"
          />
        </div>
      )}
    </div>
  );
}

export function ApplicationPage({ ns, name }: { ns: string; name: string }) {
  return (
    <Load<ApplicationAnswer>
      path={`/api/applications/${ns}/${name}`}
    >
      {({ application: a, revisions }) => (
        <section>
          <PageHeader title={`Application ${ns}/${name}`} />
          <Standing app={a} revisions={revisions} />
          <p>
            <a href={link("apps", ns, name, "graph")}>Resource graph</a>
          </p>
          <dl class="facts">
            <dt>Repository</dt>
            <dd>{a.spec.source.repositoryRef.name}{a.spec.source.path ? ` (${a.spec.source.path})` : ""}</dd>
            <dt>Renderer</dt>
            <dd>{a.spec.source.render?.type ?? "yaml"}</dd>
            <dt>Service account</dt>
            <dd>{a.spec.serviceAccountName ?? "(default)"}</dd>
            <dt>Sync</dt>
            <dd>
              {a.spec.suspend ? "suspended" : a.spec.sync?.automatic ? "automatic" : "after approval"}
              {a.spec.sync?.selfHeal ? ", self-heal" : ""}
              {a.spec.sync?.prune === false ? ", no prune" : ""}
            </dd>
            <dt>Commit</dt>
            <dd class="mono">{short(a.status?.sourceRevision)}</dd>
            <dt>Desired / deployed</dt>
            <dd class="mono">{a.status?.desiredRevision ?? "-"} / {a.status?.deployedRevision ?? "-"}</dd>
          </dl>
          <h2>Conditions</h2>
          <Conditions conditions={a.status?.conditions} />
          <h2>Revisions</h2>
          {revisions.length === 0 ? <p class="muted">No Revisions yet.</p> : (
            <DataTable
              label="Revisions"
              rows={revisions}
              rowKey={(r) => r.name ?? ""}
              columns={[
                {
                  header: "Revision",
                  cell: (r) => <a href={link("revisions", ns, r.name ?? "")}>{r.name}</a>,
                },
                { header: "Commit", cell: (r) => short(r.sourceRevision), class: "mono" },
                { header: "Phase", cell: (r) => <PhaseBadge phase={r.phase} /> },
                {
                  header: "Plan",
                  cell: (r) =>
                    r.summary
                      ? `+${r.summary.create} ~${r.summary.update} -${r.summary.prune} =${r.summary.unchanged}`
                      : "-",
                },
                { header: "Approved", cell: (r) => r.approved ? "yes" : "no" },
                { header: "Created", cell: (r) => r.createdAt },
              ]}
            />
          )}
        </section>
      )}
    </Load>
  );
}
