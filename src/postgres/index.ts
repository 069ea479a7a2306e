/**
 * model-gateway/postgres: API keys, a usage ledger and schema migrations in PostgreSQL, over a
 * structural client the user brings (`pg`'s `Pool` as it is; postgres.js, PGlite or Bun's `SQL`
 * in a line). Imports no driver and no `node:` module.
 *
 * @module
 */
export type {
  ListenHandlers,
  ListenSubscription,
  PostgresClient,
  PostgresListener,
  PostgresOptions,
} from './client'
export { assertMigrated, migrate, schemaVersion } from './migrate'
export type { MigrationResult } from './migrate'
export { latestSchemaVersion } from './schema-sql'
export { createPostgresKeyStore } from './key-store'
export type { PostgresKeyStore, PostgresKeyStoreOptions } from './key-store'
export { createPgListener } from './pg-listener'
export type { PgConnection, PgListenerOptions, PgPoolLike } from './pg-listener'
export { createPostgresLedger } from './ledger'
export type { LedgerStats, PostgresLedger, PostgresLedgerOptions } from './ledger'
export { ledgerReseed } from './ledger-reseed'
export { dropLedgerMonths } from './ledger-retention'
export { createKey, getKey, listKeys, revokeKey, updateKey } from './key-admin'
export type { CreatedKey } from './key-admin'
export { KeyAdminError } from './key-input'
export type { CreateKeyInput, UpdateKeyInput } from './key-input'
export { dailyUsage, keyUsage } from './key-usage'
export type { KeyUsageReport, UsageTotals } from './key-usage'
export { organisationUsage } from './org-usage'
export type { OrganisationUsageReport } from './org-usage'
export { createPostgresUsageReports } from './usage-reports'
export { createTeam, getTeam, listTeams, updateTeam } from './team-admin'
export type { CreateTeamInput, UpdateTeamInput } from './team-input'
export type { StoredTeam } from './stored-team'
export type { TeamCheck } from './team-check'
export { createPostgresTeamStore } from './team-store'
export type { PostgresTeamStoreOptions } from './team-store'
export { teamUsage } from './team-usage'
export type { TeamUsageReport } from './team-usage'
export { endUserUsage } from './end-user-usage'
export type { EndUserUsageReport } from './end-user-usage'
export type { StoredKey } from './stored-key'
export { displayKey, publicIdOf } from './key-format'
