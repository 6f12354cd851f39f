// GET /api/v1/job-kinds - the job kinds a worker runs, with the least role that may start each
import { apiHandler } from '@/lib/api';
import { jobs } from '@/app/_server/jobs';

export const GET = apiHandler({}, async () => ({ kinds: jobs.kinds() }));
