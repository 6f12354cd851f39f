// GET /api/v1/etl/tables - the lake tables tables.json defines (name, source, category), for pickers; { tables: [], error } when the file is missing or invalid
import path from 'node:path';
import { z } from 'zod';
import { apiHandler } from '@/app/_server/deps';
import { loadTablesConfig } from '@/lib/config/tables-json';

const Table = z.object({ lakeName: z.string(), source: z.string(), category: z.enum(['masters', 'transactions']) });

export const GET = apiHandler({
  response: z.object({ file: z.string(), tables: z.array(Table), error: z.string().optional() }),
}, async ({ deps }) => {
  const file = path.resolve(deps.env.TRIBUTARY_TABLES_FILE);
  try {
    const defs = await loadTablesConfig(file);
    return { file: deps.env.TRIBUTARY_TABLES_FILE, tables: defs.map((d) => ({ lakeName: d.lakeName, source: d.source, category: d.category })) };
  } catch (e) {
    // A picker with nothing to offer still works (the field takes typed names); the page says why.
    return { file: deps.env.TRIBUTARY_TABLES_FILE, tables: [], error: (e as Error).message };
  }
});
