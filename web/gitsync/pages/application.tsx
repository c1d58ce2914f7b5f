import { Badge, Conditions, Load, short } from "../components.tsx";
import { PageHeader } from "../../shared/ui.tsx";
import { link } from "../router.ts";
import type { ApplicationAnswer } from "../types.ts";

export function ApplicationPage({ ns, name }: { ns: string; name: string }) {
  return (
    <Load<ApplicationAnswer>
      path={`/api/applications/${ns}/${name}`}
    >
      {({ application: a, revisions }) => (
        <section>
          <PageHeader title={`Application ${ns}/${name}`} />
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
          {revisions.length === 0
            ? <p class="muted">No Revisions yet.</p>
            : (
              <div class="table-wrap" role="region" tabIndex={0} aria-label="Revisions">
                <table class="table">
                  <thead>
                    <tr>
                      <th>Revision</th>
                      <th>Commit</th>
                      <th>Phase</th>
                      <th>Plan</th>
                      <th>Approved</th>
                      <th>Created</th>
                    </tr>
                  </thead>
                  <tbody>
                    {revisions.map((r) => (
                      <tr key={r.name}>
                        <td>
                          <a href={link("revisions", ns, r.name ?? "")}>{r.name}</a>
                        </td>
                        <td class="mono">{short(r.sourceRevision)}</td>
                        <td>
                          <Badge value={r.phase} />
                        </td>
                        <td>
                          {r.summary
                            ? `+${r.summary.create} ~${r.summary.update} -${r.summary.prune} =${r.summary.unchanged}`
                            : "-"}
                        </td>
                        <td>{r.approved ? "yes" : "no"}</td>
                        <td>{r.createdAt}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
        </section>
      )}
    </Load>
  );
}
