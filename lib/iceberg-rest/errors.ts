/**
 * The Iceberg REST catalog's error answer (OpenAPI `ErrorModel` inside
 * `IcebergErrorResponse`): `{ "error": { "message", "type", "code" } }`, the
 * HTTP status repeated in `code`, `type` the Java exception name clients map
 * to their own errors (pyiceberg, iceberg-java, iceberg-js all read it).
 */
export type IcebergErrorType =
  | 'BadRequestException' | 'NotAuthorizedException' | 'ForbiddenException' | 'NoSuchNamespaceException'
  | 'NoSuchTableException' | 'NoSuchViewException' | 'NotFoundException' | 'UnsupportedOperationException'
  | 'ServiceUnavailableException' | 'InternalServerError';

export function icebergError(code: number, type: IcebergErrorType, message: string, headers: Record<string, string> = {}): Response {
  return Response.json({ error: { message: `iceberg-rest: ${message}`, type, code } }, { status: code, headers });
}

/** 401, with the challenge a bearer-token client expects. */
export const notAuthorized = (message: string) => icebergError(401, 'NotAuthorizedException', message, { 'WWW-Authenticate': 'Bearer realm="tributary-iceberg"' });

/** The spec's answer for an operation the server does not offer (406, `UnsupportedOperationResponse`). */
export const unsupported = (what: string) =>
  icebergError(406, 'UnsupportedOperationException', `${what} is not supported: Tributary's REST catalog is read-only (tables are written by Tributary's own engines)`);
