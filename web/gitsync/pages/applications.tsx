import { currentNamespace, Load, NamespaceFilter, ReadyBadge, short } from "../components.tsx";
import { api } from "../api.ts";
import { useLoad } from "../../shared/use_load.ts";
import type { Application, Revision } from "../types.ts";
import { Empty, PageHeader, TableWrap } from "../../shared/ui.tsx";
import { link, navigate } from "../router.ts";

export const ready = (a: Application) => a.status?.conditions?.find((c) => c.type === "Ready");

/** Whether Ready alone says too little, so the desired Revision's phase is worth reading. */
export const needsPhase = (a: Application) =>
  !!a.status?.desiredRevision && ready(a)?.status !== "True" && ready(a)?.status !== "False";

/** The Ready badge of a row; while Ready is unknown it reads the desired Revision's phase. */
function AppReady({ app }: { app: Application }) {
  const ns = app.metadata.namespace, desired = app.status?.desiredRevision;
  const revision = useLoad(
    () => (needsPhase(app) ? api<Revision>(`/api/revisions/${ns}/${desired}`) : Promise.resolve(undefined)),
    [ns, desired, needsPhase(app)],
  );
  return <ReadyBadge ready={ready(app)} desiredPhase={revision.data?.status?.phase} />;
}

export function ApplicationsPage() {
  return (
    <section>
      <PageHeader title={`Applications`} />
      <NamespaceFilter
        onChange={(ns) => navigate(ns ? `${link("apps")}?namespace=${encodeURIComponent(ns)}` : link("apps"))}
      />
      <Load<{ items: Application[] }>
        path={`/api/applications${
          currentNamespace() ? `?namespace=${encodeURIComponent(currentNamespace())}` : ""
        }`}
      >
        {({ items }) =>
          items.length === 0
            ? (
              <Empty title="No Applications you may see.">
                Pick another namespace, or ask for read access to it.
              </Empty>
            )
            : (
              <TableWrap label="Applications">
                <table class="table">
                  <thead>
                    <tr>
                      <th>Namespace</th>
                      <th>Name</th>
                      <th>Ready</th>
                      <th>Repository</th>
                      <th>Commit</th>
                      <th>Desired</th>
                      <th>Deployed</th>
                      <th>Sync</th>
                    </tr>
                  </thead>
                  <tbody>
                    {items.map((a) => (
                      <tr key={`${a.metadata.namespace}/${a.metadata.name}`}>
                        <td>{a.metadata.namespace}</td>
                        <td>
                          <a href={link("apps", a.metadata.namespace, a.metadata.name)}>{a.metadata.name}</a>
                        </td>
                        <td>
                          <AppReady app={a} />
                        </td>
                        <td>{a.spec.source.repositoryRef.name}</td>
                        <td class="mono">{short(a.status?.sourceRevision)}</td>
                        <td class="mono">{a.status?.desiredRevision}</td>
                        <td class="mono">{a.status?.deployedRevision}</td>
                        <td>
                          {a.spec.suspend ? "suspended" : a.spec.sync?.automatic ? "automatic" : "approval"}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </TableWrap>
            )}
      </Load>
    </section>
  );
}
