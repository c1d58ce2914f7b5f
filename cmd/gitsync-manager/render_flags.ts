/** What `gitsync-manager render` parses its flags into, shared by the command and the render it loads. */
import type { RenderType } from "../../controller/gitsync/render/render.ts";

export interface RenderFlags {
  repository: string;
  revision: string;
  path: string;
  render?: RenderType;
  valuesFile: string[];
  releaseName?: string;
  namespace: string;
  kubeVersion: string;
  chartRepository?: string;
  chart?: string;
  chartVersion?: string;
  output: "yaml" | "json" | "table";
}

/** Whether --repository names a remote (URL or scp-like) rather than a folder. */
export function isUrl(repository: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(repository) || /^[^/\s]+@[^/\s]+:/.test(repository);
}
