import { ListPage, ReadyBadge, short } from "../components.tsx";
import { api } from "../api.ts";
import { useLoad } from "../../shared/use_load.ts";
import type { Application, Revision } from "../types.ts";
import { link } from "../router.ts";

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
    <ListPage<Application>
      title="Applications"
      page="apps"
      path="/api/applications"
      columns={[
        {
          header: "Name",
          cell: (a) => <a href={link("apps", a.metadata.namespace, a.metadata.name)}>{a.metadata.name}</a>,
        },
        { header: "Ready", cell: (a) => <AppReady app={a} /> },
        { header: "Repository", cell: (a) => a.spec.source.repositoryRef.name },
        { header: "Commit", cell: (a) => short(a.status?.sourceRevision), class: "mono" },
        { header: "Desired", cell: (a) => a.status?.desiredRevision, class: "mono" },
        { header: "Deployed", cell: (a) => a.status?.deployedRevision, class: "mono" },
        {
          header: "Sync",
          cell: (a) => a.spec.suspend ? "suspended" : a.spec.sync?.automatic ? "automatic" : "approval",
        },
      ]}
    />
  );
}
