/**
 * Projects: shared sub-brains of memory. Resolution of a project reference (id or name) and access
 * checks for the memory engine and MCP, the project and membership operations behind
 * /v1/projects, and each user's active project.
 */
export { activeProjectId, clearActiveProject, getActiveProject, setActiveProject } from "./active_project.ts";
export { generateProjectId, PROJECT_ID_PREFIX } from "./project_id.ts";
export {
  MAX_PROJECT_NAME_LENGTH,
  parseProjectName,
  type ProjectName,
  projectNameKey,
} from "./project_name.ts";
export {
  createProject,
  deleteProject,
  findProjectView,
  getProject,
  listMembers,
  listProjects,
  type ProjectMember,
  type ProjectView,
  projectView,
  shareProject,
  unshareProject,
} from "./projects.ts";
export {
  accessibleProjectIds,
  NO_SUCH_PROJECT,
  NOT_A_MEMBER,
  projectAccess,
  type ProjectRole,
  type ResolvedProject,
  resolveProject,
} from "./resolve_project.ts";
