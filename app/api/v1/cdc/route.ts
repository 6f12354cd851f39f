// GET /api/v1/cdc - every streamed branch (cdc: log) live: state, lag in bytes and seconds, rows per second, last commit, retained WAL, lag alert, its cdc.stream run
import { apiHandler } from '@/app/_server/deps';
import { cdcLiveView } from '@/lib/cdc/live-view';

export const GET = apiHandler({}, async ({ deps }) => cdcLiveView(deps));
