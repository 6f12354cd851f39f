// Any /api/v1 path no route serves: the API's JSON error, not the panel's HTML 404.
import { errorResponse, toErrorResponse } from '@/lib/api';
import { assertCleanRequestHead } from '@/lib/errors/bad-bytes';

const notFound = async (req: Request) => {
  // A path that does not decode is the client's error (400 naming it), not a missing route.
  try { assertCleanRequestHead(req); } catch (e) { return toErrorResponse(e); }
  return errorResponse('not_found', `no such API route: ${req.method} ${new URL(req.url).pathname} (see /api/v1/openapi.json)`, 404);
};

export const GET = notFound;
export const POST = notFound;
export const PUT = notFound;
export const PATCH = notFound;
export const DELETE = notFound;
