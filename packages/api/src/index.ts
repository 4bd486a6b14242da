// The one barrel of @agent-teams/api: explicit named exports only.

export type { EventHub } from './events/event-hub.js';
export { createEventHub } from './events/event-hub.js';
export type { JobProgressNotice, ProgressSource } from './events/progress-source.js';
export type { ApiContext } from './schema/index.js';
export { buildSchema } from './schema/index.js';
export type { AgentTeamsServer, ServerDeps } from './server/create-server.js';
export { createServer } from './server/create-server.js';
export { UNEXPECTED_ERROR_MESSAGE } from './server/mask-error.js';
export { DatabaseInUseError } from './storage/database-in-use-error.js';
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
