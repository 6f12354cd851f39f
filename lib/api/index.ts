// The web process's API layer: one handler wrapper for every /api/v1 route,
// the process-wide database handles, and the error body shape.
export { apiHandler, json, accepted, type HandlerSpec, type HandlerContext } from './handler';
export { authenticate, principalLabel, auditActor, type Principal } from './authenticate';
export { checkCookieMutation, publicOrigin } from './origin';
export { getServerDeps, closeServerDeps, type ServerDeps } from './deps';
export { readJsonBody, DEFAULT_MAX_BODY_BYTES } from './body';
export { toErrorResponse, errorResponse, type ApiErrorBody } from './errors';
