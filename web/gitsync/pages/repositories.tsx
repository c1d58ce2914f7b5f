import { Badge, currentNamespace, Load, NamespaceFilter, short } from "../components.tsx";
import type { Repository } from "../types.ts";
import { link, navigate } from "../router.ts";

export function RepositoriesPage() {
  return (
    <section>
      <h1>Repositories</h1>
      <NamespaceFilter
        onChange={(ns) =>
          navigate(ns ? `${link("repos")}?namespace=${encodeURIComponent(ns)}` : link("repos"))}
      />
      <Load<{ items: Repository[] }>
        path={`/api/repositories${
          currentNamespace() ? `?namespace=${encodeURIComponent(currentNamespace())}` : ""
        }`}
      >
        {({ items }) =>
          items.length === 0 ? <p class="muted">No Repositories you may see.</p> : (
            <table class="list">
              <thead>
                <tr>
                  <th>Namespace</th>
                  <th>Name</th>
                  <th>URL</th>
                  <th>Revision</th>
                  <th>Ready</th>
                  <th>Message</th>
                </tr>
              </thead>
              <tbody>
                {items.map((r) => {
                  const ready = r.status?.conditions?.find((c) => c.type === "Ready");
                  return (
                    <tr key={`${r.metadata.namespace}/${r.metadata.name}`}>
                      <td>{r.metadata.namespace}</td>
                      <td>{r.metadata.name}</td>
                      <td class="mono">{r.spec.git.url}</td>
                      <td class="mono">
                        {r.spec.git.revision ?? "HEAD"} {short(r.status?.artifact?.revision)}
                      </td>
                      <td>
                        <Badge value={ready?.reason ?? ready?.status} />
                      </td>
                      <td class="message">{ready?.message}</td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          )}
      </Load>
    </section>
  );
}
