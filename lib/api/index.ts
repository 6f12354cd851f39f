// The web process's API layer: one handler wrapper for every /api/v1 route,
// the server deps it is handed (built by the web process's edge), and the error body shape.
export { createApiHandler, json, accepted, type ApiHandler, type ApiRouteHandler, type HandlerSpec, type HandlerContext } from './handler';
export { authenticate, principalLabel, auditActor, type Principal } from './authenticate';
export { checkCookieMutation, publicOrigin } from './origin';
export { createServerDeps, closeServerDeps, type ServerDeps } from './deps';
export { readJsonBody, DEFAULT_MAX_BODY_BYTES } from './body';
export { toErrorResponse, errorResponse, type ApiErrorBody } from './errors';
