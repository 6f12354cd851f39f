// Any /api/v1 path no route serves: the API's JSON error, not the panel's HTML 404.
import { errorResponse } from '@/lib/api';

const notFound = (req: Request) => errorResponse('not_found', `no such API route: ${req.method} ${new URL(req.url).pathname} (see /api/v1/openapi.json)`, 404);

export const GET = notFound;
export const POST = notFound;
export const PUT = notFound;
export const PATCH = notFound;
export const DELETE = notFound;
