/**
 * The Latch SDK: `ClientApp` for end users, `ServerApp` for your backend, `AdminApp` for project
 * owners. Everything here is safe in a browser bundle; the secret keys of `ServerApp` and
 * `AdminApp` are not: keep those apps on a server.
 */
export { AdminApp, type AdminAppOptions, type CreatedInternalApiKey, type InternalApiKey, type InternalApiKeyCreateInput, type InternalApiKeyUpdateInput, type ProjectConfig, type ProjectUpdateInput } from './admin-app.js';
export { CACHE_GC_TIME_MS, type LatchQuery, type QueryState } from './cache.js';
export {
  ClientApp,
  type AdminProject,
  type ClientAppOptions,
  type ClientProject,
  type ClientUser,
  type ClientUserUpdate,
  type GetUserOptions,
  type PasswordSetError,
  type PasswordSetInput,
  type PasswordSignInInput,
  type PasswordSignUpInput,
  type PasswordUpdateError,
  type PasswordUpdateInput,
  type ProjectCreateInput,
  type ProjectTransferInput,
  type ServerUser,
  type SignInError,
  type SignInResult,
  type SignUpError,
  type UserSession,
} from './client-app.js';
export {
  KnownError,
  KnownErrors,
  LatchAssertionError,
  LatchNetworkError,
  OFFLINE_MESSAGE,
  UserNotSignedInError,
  isKnownErrorInGroup,
  knownErrorGroups,
  type KnownErrorCode,
  type KnownErrorGroupName,
  type KnownErrorOf,
  type Result,
} from './errors.js';
export { ServerApp, type ServerAppOptions, type ServerUserUpdate, type SessionCreateInput, type SessionTokens, type UserCreateInput, type UserList, type UserListQuery } from './server-app.js';
export { cookieTokenStore, memoryTokenStore, type TokenPair, type TokenStore, type TokenStoreInit } from './tokens.js';
export { DEFAULT_BASE_URL, type RouterInputs, type RouterOutputs } from './transport.js';
