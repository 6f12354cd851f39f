export { getWatermarks, getWatermarksOfTables, type LakeTableRef, type Watermark } from './control-state';
export { createPrisma, type Db } from './prisma';
export { createPool } from './pool';
export { migrate, listMigrations, MIGRATIONS_DIR } from './migrate';
export { ensureEmbeddedPostgres, ensureDatabase, type EmbeddedHandle } from './embedded-postgres';
export { connectDatabase } from './connect';
export { withTransaction } from './with-transaction';
export { createPgClient, createPgPool, sessionUsesTls, type SslMode, type PgTlsSettings } from './pg-connect';
