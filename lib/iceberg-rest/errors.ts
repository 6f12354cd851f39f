/**
 * The Iceberg REST catalog's error answer (OpenAPI `ErrorModel` inside
 * `IcebergErrorResponse`): `{ "error": { "message", "type", "code" } }`, the
 * HTTP status repeated in `code`, `type` the Java exception name clients map
 * to their own errors (pyiceberg, iceberg-java, iceberg-js all read it).
 */
export type IcebergErrorType =
  | 'BadRequestException' | 'NotAuthorizedException' | 'ForbiddenException' | 'NoSuchNamespaceException'
  | 'NoSuchTableException' | 'NoSuchViewException' | 'NoSuchFunctionException' | 'NoSuchPlanIdException'
  | 'NoSuchPlanTaskException' | 'NotFoundException' | 'MethodNotAllowedException' | 'UnsupportedOperationException'
  | 'ServiceUnavailableException' | 'InternalServerError' | 'AlreadyExistsException' | 'NamespaceNotEmptyException';

export function icebergError(code: number, type: IcebergErrorType, message: string, headers: Record<string, string> = {}): Response {
  return Response.json({ error: { message: `iceberg-rest: ${message}`, type, code } }, { status: code, headers });
}

/** 401, with the challenge a bearer-token client expects. */
export const notAuthorized = (message: string) => icebergError(401, 'NotAuthorizedException', message, { 'WWW-Authenticate': 'Bearer realm="tributary-iceberg"' });

const READ_ONLY = "Tributary's REST catalog is read-only (tables and namespaces are written by Tributary's own engines: pipelines, models, `tributary lake`)";

/**
 * An error whose body the spec declares as `ErrorModel` itself (the fields at the top level) rather
 * than the `{ "error": ErrorModel }` wrapper of every other error: the 406 answers and the views
 * operations' 404s. The spec's own examples for them, and every client (iceberg-java's
 * ErrorResponseParser, pyiceberg, iceberg-js), use the wrapper. The body carries both, so it
 * validates against the declared schema and clients read the wrapper as usual. (Never for a
 * response declared as `IcebergErrorResponse`: that one allows no other top-level key.)
 */
export function flatIcebergError(code: number, type: IcebergErrorType, message: string): Response {
  const error = { message: `iceberg-rest: ${message}`, type, code };
  return Response.json({ error, ...error }, { status: code });
}

/**
 * 406 `UnsupportedOperationException`, only for the operations whose responses the spec declares
 * 406 for (createNamespace, updateProperties, planTableScan, renameTable, renameView).
 */
export const unsupported = (what: string) => flatIcebergError(406, 'UnsupportedOperationException', `${what} is not supported: ${READ_ONLY}`);

/**
 * 403 `ForbiddenException` for a write the spec declares no 406 for (createTable, updateTable,
 * dropTable, dropNamespace, registerTable, commitTransaction, …): the closest declared answer for
 * "this catalog does not let anyone do that", never a status the operation does not list.
 */
export const forbidden = (what: string) => icebergError(403, 'ForbiddenException', `${what} is not allowed: ${READ_ONLY}`);
