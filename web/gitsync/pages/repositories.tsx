import { ListPage, ReadyBadge, short } from "../components.tsx";
import type { Repository } from "../types.ts";

const ready = (r: Repository) => r.status?.conditions?.find((c) => c.type === "Ready");

export function RepositoriesPage() {
  return (
    <ListPage<Repository>
      title="Repositories"
      page="repos"
      path="/api/repositories"
      columns={[
        { header: "Name", cell: (r) => r.metadata.name },
        { header: "URL", cell: (r) => r.spec.git.url, class: "mono" },
        {
          header: "Revision",
          cell: (r) => <>{r.spec.git.revision ?? "HEAD"} {short(r.status?.artifact?.revision)}</>,
          class: "mono",
        },
        { header: "Ready", cell: (r) => <ReadyBadge ready={ready(r)} /> },
        { header: "Message", cell: (r) => ready(r)?.message, class: "message" },
      ]}
    />
  );
}
