import { currentNamespace, Load, NamespaceFilter, ReadyBadge, short } from "../components.tsx";
import type { Repository } from "../types.ts";
import { Empty, PageHeader, TableWrap } from "../../shared/ui.tsx";
import { link, navigate } from "../router.ts";

export function RepositoriesPage() {
  return (
    <section>
      <PageHeader title={`Repositories`} />
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
          items.length === 0
            ? (
              <Empty title="No Repositories you may see.">
                Pick another namespace, or ask for read access to it.
              </Empty>
            )
            : (
              <TableWrap label="Repositories">
                <table class="table">
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
                            <ReadyBadge ready={ready} />
                          </td>
                          <td class="message">{ready?.message}</td>
                        </tr>
                      );
                    })}
                  </tbody>
                </table>
              </TableWrap>
            )}
      </Load>
    </section>
  );
}
