// The rendered API reference (Scalar, served from this installation: no CDN, works offline).
const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Tributary API reference</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body><script id="api-reference" data-url="/api/v1/openapi.json" data-configuration='{"withDefaultFonts":false,"hideClientButton":true}'></script>
<script src="/api/docs/standalone.js"></script></body></html>`;

export function GET(): Response {
  return new Response(PAGE, { headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' } });
}
