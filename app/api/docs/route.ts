// GET /api/docs - the rendered API reference: Swagger UI served from this installation
// (no CDN, no hosted services, works offline), over /api/v1/openapi.json.
const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Tributary API reference</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/api/docs/swagger-ui.css"></head>
<body><div id="api-reference"></div>
<script src="/api/docs/swagger-ui-bundle.js"></script>
<script>
  // validatorUrl null: no badge fetched from the public validator; requests go only to this server.
  window.ui = SwaggerUIBundle({ url: '/api/v1/openapi.json', dom_id: '#api-reference', deepLinking: true, validatorUrl: null, tryItOutEnabled: false });
</script></body></html>`;

export function GET(): Response {
  return new Response(PAGE, { headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' } });
}
