import { HealthBadge, Load } from "../components.tsx";
import { PageHeader } from "../../shared/ui.tsx";
import { link } from "../router.ts";
import type { Graph } from "../types.ts";

function Tree({ g, id, seen }: { g: Graph; id: string; seen: Set<string> }) {
  const node = g.nodes.find((n) => n.id === id)!;
  seen.add(id);
  const children = g.edges.filter((e) => e.from === id && !seen.has(e.to)).map((e) => e.to);
  return (
    <li>
      <span class="node">
        <span class="kind">{node.kind}</span> {node.name} <HealthBadge health={node.health} />
        {node.message && <span class="message">{node.message}</span>}
      </span>
      {children.length > 0 && (
        <ul>
          {children.map((c) => <Tree key={c} g={g} id={c} seen={seen} />)}
        </ul>
      )}
    </li>
  );
}

export function GraphPage({ ns, name }: { ns: string; name: string }) {
  return (
    <section>
      <PageHeader title={`Resource graph of ${ns}/${name}`} />
      <p>
        <a href={link("apps", ns, name)}>Back to the Application</a>
      </p>
      <Load<Graph> path={`/api/applications/${ns}/${name}/graph`}>
        {(g) => {
          const owned = new Set(g.edges.map((e) => e.to));
          const roots = g.nodes.filter((n) => !owned.has(n.id));
          const seen = new Set<string>();
          return (
            <div class="graph">
              {g.nodes.length === 0 ? <p class="muted">No live objects found.</p> : (
                <ul class="tree">
                  {roots.map((r) => <Tree key={r.id} g={g} id={r.id} seen={seen} />)}
                </ul>
              )}
              {g.secretsLeftOut && <p class="muted">Secrets are left out: the console never reads them.</p>}
              {g.notListed.length > 0 && (
                <p class="muted">You may not list {g.notListed.join(", ")}: the graph is shallower there.</p>
              )}
            </div>
          );
        }}
      </Load>
    </section>
  );
}
