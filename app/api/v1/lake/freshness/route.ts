// GET /api/v1/lake/freshness - per table × branch: last load, watermark and age (etl_meta.etl_control with control_state)
import { apiHandler } from '@/app/_server/deps';
import { lakeFreshness } from '@/lib/api/presenters/lake';

export const GET = apiHandler({}, async ({ deps }) => lakeFreshness(deps.pool));
