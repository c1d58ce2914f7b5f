import { approveCommand, Conditions, Load, PhaseBadge, short } from "../components.tsx";
import { DataTable } from "../../shared/data_table.tsx";
import { CopyCommand } from "../../shared/ui.tsx";
import type { ObjectRef, Revision } from "../types.ts";
import { PageHeader } from "../../shared/ui.tsx";
import { link } from "../router.ts";

const ref = (
  o: ObjectRef | undefined,
) => (o ? `${o.kind}/${o.namespace ? `${o.namespace}/` : ""}${o.name}` : "");

export function RevisionPage({ ns, name }: { ns: string; name: string }) {
  return (
    <Load<Revision> path={`/api/revisions/${ns}/${name}`}>
      {(r) => {
        const plan = r.status?.plan;
        const approval = r.status?.approval;
        const d = r.status?.diagnosis;
        const hooks = r.status?.hooks ?? [];
        return (
          <section>
            <PageHeader title={`Revision ${ns}/${name}`} />
            <dl class="facts">
              <dt>Application</dt>
              <dd>
                <a href={link("apps", ns, r.spec.applicationRef.name)}>{r.spec.applicationRef.name}</a>
              </dd>
              <dt>Commit</dt>
              <dd class="mono">{short(r.spec.sourceRevision)}</dd>
              <dt>Service account</dt>
              <dd>{r.spec.serviceAccountName}</dd>
              <dt>Phase</dt>
              <dd>
                <PhaseBadge phase={r.status?.phase} />
              </dd>
            </dl>
            {r.status?.failure && (
              <p class="alert alert-error" role="alert">
                {r.status.failure.reason}: {r.status.failure.message}
              </p>
            )}
            <h2>Approval</h2>
            {approval
              ? (
                <p class="approval">
                  Approved by <b>{approval.approvedBy}</b> at {approval.approvedAt} for plan{" "}
                  <span class="mono">{approval.planDigest}</span>
                  {plan && approval.planDigest !== plan.digest ? " (stale: the plan has changed since)" : ""}
                </p>
              )
              : (
                <div class="approval">
                  <p class="muted">Not approved.{plan ? " Approve with:" : ""}</p>
                  {plan && (
                    <CopyCommand
                      command={approveCommand(r.spec.applicationRef.name, ns, plan.digest)}
                      label="Copy the approve command"
                    />
                  )}
                </div>
              )}
            <h2>Plan</h2>
            {!plan ? <p class="muted">No plan yet.</p> : (
              <div class="plan">
                <p>
                  Digest <span class="mono">{plan.digest}</span>: {plan.summary.create} to create,{" "}
                  {plan.summary.update} to update, {plan.summary.unchanged} unchanged, {plan.summary.prune}
                  {" "}
                  to prune
                  {plan.summary.pruneSkipped ? `, ${plan.summary.pruneSkipped} kept from pruning` : ""}
                </p>
                <DataTable
                  label="Plan"
                  rows={plan.entries}
                  rowKey={(e) => `${e.kind}/${e.namespace}/${e.name}`}
                  columns={[
                    { header: "Action", cell: (e) => <span class={`action ${e.action}`}>{e.action}</span> },
                    {
                      header: "Object",
                      cell: (e) => <>{e.kind}/{e.namespace ? `${e.namespace}/` : ""}{e.name}</>,
                    },
                  ]}
                />
                {plan.entries.filter((e) => e.diff).map((e) => (
                  <details open key={`diff-${e.kind}/${e.namespace}/${e.name}`} class="diff">
                    <summary>{e.kind}/{e.name}</summary>
                    {/* A long line scrolls sideways: the box is in the tab order so keys reach it. */}
                    <pre tabIndex={0} aria-label={`Diff of ${e.kind}/${e.name}`}>
                      {e.diff!.split("\n").map((line, i) => (
                        <span key={i} class={line.startsWith("+") ? "add" : line.startsWith("-") ? "del" : ""}>
                          {line}
                          {"\n"}
                        </span>
                      ))}
                    </pre>
                  </details>
                ))}
                {plan.truncated && (
                  <p class="muted">Later diffs were left out (plan size budget); the digest covers them.</p>
                )}
              </div>
            )}
            <h2>Hooks</h2>
            {hooks.length === 0 ? <p class="muted">No hooks.</p> : (
              <DataTable
                label="Hooks"
                class="hooks"
                rows={hooks}
                rowKey={(_, i) => i}
                columns={[
                  { header: "Stage", cell: (h) => h.stage },
                  { header: "Hook", cell: (h) => <>{h.kind}/{h.name}</> },
                  { header: "State", cell: (h) => <PhaseBadge phase={h.state} /> },
                  { header: "Attempt", cell: (h) => h.rollout },
                  { header: "Message", cell: (h) => h.message, class: "message" },
                ]}
              />
            )}
            <h2>Diagnosis</h2>
            {!d ? <p class="muted">No diagnosis.</p> : (
              <div class="diagnosis">
                {d.firstRootCause && (
                  <p>
                    First root cause: <b>{d.firstRootCause.reason}</b> on {ref(d.firstRootCause.resource)}:
                    {" "}
                    {d.firstRootCause.message}
                  </p>
                )}
                <ul>
                  {d.causes.map((c, i) => (
                    <li key={i}>
                      <b>{c.reason}</b>: {c.message}
                      <div class="chain">{c.chain.map(ref).join(" → ")}</div>
                    </li>
                  ))}
                </ul>
                <p class="muted">Diagnosed at {d.diagnosedAt}</p>
              </div>
            )}
            <h2>Conditions</h2>
            <Conditions conditions={r.status?.conditions} />
          </section>
        );
      }}
    </Load>
  );
}
