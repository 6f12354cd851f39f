// GET /api/v1/connections/export.toml - branch connections as [oracle_branches.<key>] / [postgres_branches.<key>] TOML, non-secret fields only
import { apiHandler } from '@/app/_server/deps';
import { connectionsContext } from '@/lib/api/presenters/connections';
import { connectionsToToml, listConnections } from '@/lib/connections';

export const GET = apiHandler({ summary: 'branch connections as TOML (non-secret fields only; what POST /connections/import reads)' }, async ({ deps }) => {
  const toml = connectionsToToml(await listConnections(connectionsContext(deps), { branchesOnly: true }));
  return new Response(toml, {
    headers: { 'content-type': 'application/toml; charset=utf-8', 'content-disposition': 'attachment; filename="connections.toml"', 'cache-control': 'no-store' },
  });
});
