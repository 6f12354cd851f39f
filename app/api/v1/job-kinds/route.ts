// GET /api/v1/job-kinds - every job kind with its description, the least role POST /api/v1/jobs enforces for it, and its payload's JSON Schema
import { apiHandler } from '@/app/_server/deps';
import { jsonSchemaOf } from '@/lib/api/openapi';
import { jobs } from '@/app/_server/jobs';

export const GET = apiHandler({}, async () => ({
  kinds: jobs.kinds().map((k) => ({ ...k, schema: jsonSchemaOf(jobs.get(k.kind)!.payload) })),
}));
