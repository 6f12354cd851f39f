// Users, roles, passwords, API tokens and panel sessions. Used by the web
// process (lib/api, app/) and by the CLI (`tributary users|tokens`).
export { ROLES, RoleSchema, isRole, roleAtLeast, minRole, maxRole, type Role } from './roles';
export { hashPassword, verifyPassword, dummyCompare, DUMMY_HASH, MIN_PASSWORD_LENGTH } from './password';
export { createUser, createFirstAdmin, ensureAdminUser, verifyCredentials, findUser, listUsers, countUsers, updateUser, deleteUser, endSessions, findSessionUser, type UserInfo } from './users';
export { createApiToken, listApiTokens, revokeApiToken, authenticateApiToken, hashToken, TOKEN_PREFIX, type ApiTokenInfo } from './tokens';
export { loadSecret } from './secret';
export { createAuthOptions, readSession, sessionUser, usesSecureCookies, LOCKED_ERROR, type SessionUser } from './session';
export { createLoginThrottle, type LoginThrottle, type LoginThrottleOptions, type LoginLock, type LoginTry } from './login-throttle';
export { attemptLogin, recordRefusedLogin, clientAddress, type LoginResult } from './login';
