// The one barrel of @agent-teams/api: explicit named exports only.

export type {
  App,
  AppOptions,
  AppRuntime,
  ClusterSettings,
  HttpSettings,
  LeaseSettings,
  RuntimeParts,
} from './app/app-options.js';
export { createApp } from './app/create-app.js';
export { defaultRuntimes } from './app/default-runtimes.js';
export type { EventHub } from './events/event-hub.js';
export type { JobProgressNotice, ProgressHub, ProgressSource } from './events/progress-hub.js';
export type { ScriptedRuntimeDeps } from './runtimes/scripted/scripted-runtime.js';
export { ScriptedRuntime } from './runtimes/scripted/scripted-runtime.js';
export type { ApiContext } from './schema/index.js';
export { buildSchema } from './schema/index.js';
export type { AgentTeamsServer } from './server/create-server.js';
export { UNEXPECTED_ERROR_MESSAGE } from './server/mask-error.js';
export { DatabaseDirectoryError } from './storage/database-directory.js';
export { DatabaseInUseError } from './storage/database-in-use-error.js';
export { DatabaseNewerError } from './storage/database-newer-error.js';
export type {
  ConversationMessagesTable,
  Database,
  JobsTable,
  MembersTable,
  RecordMessagesTable,
  RuntimeRunsTable,
  SchedulerStateTable,
  SeqValue,
  TeamEventsTable,
  TeamsTable,
} from './storage/database-types.js';
export { classifyDriverError, DriverErrorKind, StorageError } from './storage/driver-errors.js';
export type { KyselyTeamStoreOptions } from './storage/kysely-team-store.js';
export { KyselyTeamStore } from './storage/kysely-team-store.js';
export { migrateToLatest } from './storage/migrate.js';
export type { DatabaseDialect, OpenDatabaseOptions, OpenedDatabase } from './storage/open-database.js';
export { isPostgresTarget, openDatabase } from './storage/open-database.js';
