/**
 * Routes declared once and described from the same declaration: `defineRoute` / `routeMounter`
 * (guard, validation, handler), the OpenAPI 3.1 document builder, the shared error components,
 * and Swagger UI served from files embedded in the binary.
 */
export {
  errorBody,
  type ErrorResponse,
  errorResponses,
  internalErrorBody,
  lastAdminBody,
  tooManyRequestsBody,
  validationErrorBody,
} from "./components.ts";
export { DOCS_CSP, type DocsPlace } from "./docs_assets.ts";
export { healthRoutes, healthSpec } from "./health.ts";
export { apiDocsRoutes, type ApiDocsRoutesOptions } from "./docs_routes.ts";
export { type DocumentOptions, openApiDocument, openApiPath } from "./document.ts";
export {
  defineRoute,
  type Guards,
  type Inputs,
  type Method,
  type ResponseSpec,
  type RouteHandler,
  type RouteMounter,
  routeMounter,
  type RouteSpec,
} from "./route_spec.ts";
