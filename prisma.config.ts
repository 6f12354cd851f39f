import { defineConfig } from 'prisma/config';

// Prisma is used for the typed client only: migrations are the SQL files in
// prisma/migrations, applied by lib/db/migrate.ts (the schema engine binary
// cannot be downloaded on every host).
export default defineConfig({
  schema: 'prisma/schema',
});
