/** memsvc's OpenAPI document: internal/openapi's builder with memsvc's title, modes and credentials. */
import { openApiDocument } from "../../../internal/openapi/mod.ts";
import type { MemsvcConfig } from "../config.ts";
import { ERROR_RESPONSES, impliedErrors, securityOf, securitySchemes } from "./components.ts";
import type { RouteSpec } from "./route_spec.ts";

export interface MemsvcDocumentOptions {
  /** The service version (info.version). */
  version: string;
  /** The public origin, for servers[0]. */
  baseUrl: string;
  mode: MemsvcConfig["MEMSVC_AUTH_MODE"];
  /** The session cookie's name in MEMSVC_AUTH_MODE=user (it depends on http vs https). */
  sessionCookie: string;
}

export function memsvcDocument(specs: readonly RouteSpec[], options: MemsvcDocumentOptions) {
  const { mode } = options;
  return openApiDocument(specs, {
    title: "memsvc",
    description: "Memory service for AI agents: memory entries, projects, API tokens, admin and MCP. " +
      `This server runs in MEMSVC_AUTH_MODE=${mode}.`,
    version: options.version,
    baseUrl: options.baseUrl,
    securitySchemes: securitySchemes(mode, options.sessionCookie),
    securityOf: (access) => securityOf(access, mode),
    impliedErrors: (access, hasInput) => impliedErrors(access, hasInput, mode),
    errorResponses: ERROR_RESPONSES,
  });
}
