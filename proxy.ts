// The Next.js proxy (Next 16's name for middleware): every request's path,
// query and cookies checked for bytes no field may hold — malformed
// percent-encoding, invalid UTF-8, NUL — before Next's router decodes the
// path (it would answer `/api/v1/%E0%A4%A` with its HTML error page) and
// before any page or route reads them. Bodies are checked by lib/api's handler.
import { NextResponse, type NextRequest } from 'next/server';
import { AppError } from './lib/errors';
import { assertCleanRequestHead } from './lib/errors/bad-bytes';

export function proxy(req: NextRequest): NextResponse {
  try {
    assertCleanRequestHead(req);
  } catch (e) {
    if (!(e instanceof AppError)) throw e;
    const headers = { 'Cache-Control': 'no-store' };
    // The Iceberg REST catalog answers in its spec's error shape (clients read `type`).
    if (req.nextUrl.pathname.startsWith('/iceberg/')) {
      return NextResponse.json({ error: { message: `iceberg-rest: ${e.message}`, type: 'BadRequestException', code: 400, field: e.field } }, { status: 400, headers });
    }
    return NextResponse.json({ error: { code: e.code, message: e.message, field: e.field } }, { status: 400, headers });
  }
  return NextResponse.next();
}

export const config = {
  // Not Next's own static files: they are built here, never user input.
  matcher: ['/((?!_next/static|_next/image).*)'],
};
