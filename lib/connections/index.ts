/** Connection records: encrypted secrets, TOML import, branches. Public entry of `lib/connections/`. */
export { createConnection, listConnections, getConnection, getConnectionWithSecrets, deleteConnection, getBranches, updateConnection, ConnectionInputSchema, ConnectionPatchSchema, CONNECTION_KINDS,
  type ConnectionsContext, type ConnectionInput, type ConnectionPatch, type ConnectionView, type BranchConfig } from './store';
export { connectionsFromToml, readConnectionsToml, interpolateEnv } from './import-toml';
export { seal, open, deriveKey, loadKeyMaterial, type KeySource } from './secret-box';
