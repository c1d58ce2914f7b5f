import { approveCommand, Conditions, Load, PhaseBadge, short } from "../components.tsx";
import { CopyCommand, TableWrap } from "../../shared/ui.tsx";
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
                <TableWrap label="Plan">
                  <table class="table">
                    <thead>
                      <tr>
                        <th>Action</th>
                        <th>Object</th>
                      </tr>
                    </thead>
                    <tbody>
                      {plan.entries.map((e) => (
                        <tr key={`${e.kind}/${e.namespace}/${e.name}`}>
                          <td>
                            <span class={`action ${e.action}`}>{e.action}</span>
                          </td>
                          <td>{e.kind}/{e.namespace ? `${e.namespace}/` : ""}{e.name}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </TableWrap>
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
              <TableWrap label="Hooks">
                <table class="table hooks">
                  <thead>
                    <tr>
                      <th>Stage</th>
                      <th>Hook</th>
                      <th>State</th>
                      <th>Attempt</th>
                      <th>Message</th>
                    </tr>
                  </thead>
                  <tbody>
                    {hooks.map((h, i) => (
                      <tr key={i}>
                        <td>{h.stage}</td>
                        <td>{h.kind}/{h.name}</td>
                        <td>
                          <PhaseBadge phase={h.state} />
                        </td>
                        <td>{h.rollout}</td>
                        <td class="message">{h.message}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </TableWrap>
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
