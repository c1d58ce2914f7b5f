/**
 * What the console's API answers, in the controller's own types (imported as types only: nothing of
 * the controller reaches the browser bundle).
 */
import type { Application as ApplicationObject } from "../../controller/gitsync/reconcilers/application.ts";
import type { Repository as RepositoryObject } from "../../controller/gitsync/reconcilers/repository.ts";
import type { Revision as RevisionObject } from "../../controller/gitsync/reconcilers/revision.ts";
import type { RevisionSummary } from "../../controller/gitsync/console/app.ts";
import type { Graph as GraphObject } from "../../cmd/gitsync/graph.ts";

export type { Condition } from "../../controller/gitsync/reconcilers/application.ts";
export type { RevisionSummary };
export type { ObjectRef } from "../../controller/gitsync/diagnosis/diagnose.ts";

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
