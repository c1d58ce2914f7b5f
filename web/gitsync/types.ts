/**
 * What the console's API answers, in the controller's own types (imported as types only: nothing of
 * the controller reaches the browser bundle).
 */
import type {
  Application as ApplicationObject,
  Repository as RepositoryObject,
  Revision as RevisionObject,
} from "../../controller/gitsync/api/mod.ts";
import type { RevisionSummary } from "../../controller/gitsync/console/app.ts";
import type { Graph as GraphObject } from "../../controller/gitsync/graph/graph.ts";

export type { Condition, ObjectRef } from "../../controller/gitsync/api/mod.ts";
export type { RevisionSummary };

/** An object as the API server sends it: its metadata is always there. */
type Served<T> = T & {
  metadata: { name: string; namespace: string; creationTimestamp?: string; labels?: Record<string, string> };
};

export type Application = Served<ApplicationObject>;
export type Repository = Served<RepositoryObject>;
export type Revision = Served<RevisionObject>;

/** GET /api/applications/:ns/:name */
export interface ApplicationAnswer {
  application: Application;
  revisions: RevisionSummary[];
}

/** GET /api/applications/:ns/:name/graph: the graph `gitsync graph` prints, without Secrets. */
export type Graph = GraphObject & { secretsLeftOut?: boolean };
