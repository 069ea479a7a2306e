/**
 * model-gateway/console: the web console of a gateway — the "API keys" page with the base
 * address, the call guide, the model catalogue, usage and upstream health — as one WHATWG handler
 * mounted under a path, on every runtime the gateway runs on. Its page and assets are embedded at
 * build time: no file is read at run time, and the core entry carries none of it.
 *
 * @module
 */
export { createConsole } from './create-console'
export type { ConsoleHandler } from './create-console'
export { withConsole } from './with-console'
export type {
  ConsoleAuth,
  ConsoleOptions,
  ConsoleRole,
  ConsoleUser,
  OrganisationOptions,
} from './options'
export { createPostgresKeyAdmin } from './key-admin'
export type { KeyAdmin } from './key-admin'
export { createMemoryKeyAdmin } from './memory-key-admin'
export { createMemoryTeamAdmin, createPostgresTeamAdmin } from './team-admin'
export type { MemoryTeamAdmin, TeamAdmin } from './team-admin'
export type { MemoryKeyAdmin } from './memory-key-admin'
export { runtimeClientAddress } from './server/client-address'
