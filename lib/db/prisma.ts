import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from './generated/prisma/client';

export type Db = PrismaClient;

/** A Prisma client over node-postgres (no engine binary needed). */
export function createPrisma(url: string, opts: { max?: number } = {}): PrismaClient {
  const adapter = new PrismaPg({ connectionString: url, max: opts.max ?? 10 });
  return new PrismaClient({ adapter });
}
