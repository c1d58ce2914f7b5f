/**
 * Application (seed section 2): what to deploy from a Repository, as which service account, how (sync,
 * prune, conflicts, health timeout, history), and its status: the desired and deployed Revision, a
 * rollback, the kinds it manages, its conditions.
 */
import type { KubeObject } from "../../../internal/k8s/mod.ts";
import type { Condition } from "./conditions.ts";

/** spec.source.render.helm.chart: a chart from a chart repository instead of the folder in Git. */
export interface HelmChartRef {
  repository: string;
  name: string;
  version: string;
  secretRef?: { name: string };
}

/** spec.source.render.helm.valuesFrom: values from a ConfigMap or Secret, read as the service account. */
export interface ValuesFromRef {
  kind: "Secret" | "ConfigMap";
  name: string;
  /** Key holding the YAML; default values.yaml. */
  key?: string;
  optional?: boolean;
}

/** spec.source.render.helm. */
export interface HelmSource {
  chart?: HelmChartRef;
  releaseName?: string;
  valuesFiles?: string[];
  valuesFrom?: ValuesFromRef[];
  values?: Record<string, unknown>;
}

/** spec.decryption: SOPS files decrypted with the age keys of a labelled Secret. */
export interface Decryption {
  provider: "sops";
  secretRef?: { name: string };
}

export interface Application extends KubeObject {
  spec: {
    serviceAccountName?: string;
    suspend?: boolean;
    sync?: { automatic?: boolean; selfHeal?: boolean; prune?: boolean };
    source: {
      repositoryRef: { name: string };
      path?: string;
      render?: { type?: "yaml" | "kustomize" | "helm"; helm?: HelmSource };
    };
    decryption?: Decryption;
    conflictPolicy?: "fail" | "adopt";
    /** How long a wave's objects may stay short of Healthy (a Deployment has its own deadline); default 10m. */
    healthTimeout?: string;
    history?: { limit?: number };
    notifications?: { sinkRef: { name: string }; events?: string[] }[];
  };
  status?: {
    observedGeneration?: number;
    sourceRevision?: string;
    desiredRevision?: string;
    deployedRevision?: string;
    rollback?: {
      requestedAt: string;
      requestedBy?: string;
      revision?: string;
      sourceRevision?: string;
      message?: string;
    };
    managedKinds?: { group: string; version: string; kind: string; namespaced?: boolean }[];
    conditions?: Condition[];
  };
}

/** spec.history.limit when unset: Revisions kept per Application. */
export const DEFAULT_HISTORY_LIMIT = 10;

/** spec.healthTimeout when the Application sets none (the CRD's default, 10m: a Deployment's default deadline). */
export const DEFAULT_HEALTH_TIMEOUT_MS = 10 * 60_000;
