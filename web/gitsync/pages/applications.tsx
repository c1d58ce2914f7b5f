import { Badge, currentNamespace, Load, NamespaceFilter, short } from "../components.tsx";
import type { Application } from "../types.ts";
import { Empty, PageHeader } from "../../shared/ui.tsx";
import { link, navigate } from "../router.ts";

export const ready = (a: Application) => a.status?.conditions?.find((c) => c.type === "Ready");

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
              <div class="table-wrap" role="region" tabIndex={0} aria-label="Applications">
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
                          <Badge value={ready(a)?.reason ?? ready(a)?.status} />
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
              </div>
            )}
      </Load>
    </section>
  );
}
