/** Connection records: encrypted secrets, TOML import, branches. Public entry of `lib/connections/`. */
export { createConnection, listConnections, getConnection, resolveConnection, connectionExists, deleteConnection, getBranches, getConnectionWithSecrets, updateConnection, ConnectionInputSchema, ConnectionPatchSchema, CONNECTION_KINDS,
  type ConnectionsContext, type ConnectionInput, type ConnectionPatch, type ConnectionView, type BranchConfig } from './store';
export { connectionUsers, type ConnectionUser } from './connection-usage';
export { connectionsToToml } from './export-toml';
export { importConnections, type ImportOutcome } from './import-connections';
export { testConnection, type ConnectionTestResult, type TestConnectionOptions } from './test-connection';
export { browseCatalog, type CatalogBrowse } from './browse-catalog';
export { connectionsFromToml, readConnectionsToml, interpolateEnv } from './import-toml';
export { seal, open, deriveKey, loadKeyMaterial, type KeySource } from './secret-box';
export { sourceDescriptorOf, branchDescriptorOf, resolveSourceByName, sourceFromEnv } from './source-descriptor';
export { checkBranchKeys } from './check-branches';
export { builtinConnections, builtinConnection, envStriimConnection, envSourceConnection, envConfiguresStriim, isBuiltinName, striimEndpoint,
  BUILTIN_PREFIX, ENV_STRIIM, ENV_SOURCE, type ConnectionRecord, type StriimEndpoint, type EnvLike } from './builtin';
