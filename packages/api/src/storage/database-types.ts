import type { Generated } from 'kysely';

/**
 * A database-assigned sequence value.
 *
 * @remarks PostgreSQL `bigserial`/`bigint` arrives from `pg` as a string (int8 can exceed 2^53),
 * SQLite's as a number; readers convert with `Number()` (safe far beyond any realistic count).
 */
export type SeqValue = number | string;

/** `teams`: one row per team; `revision` and `last_event_seq` move with every visible change. */
export interface TeamsTable {
  seq: Generated<SeqValue>;
  id: string;
  owner: string;
  client_request_id: string;
  fingerprint: string;
  name: string;
  goal: string;
  status: string;
  revision: number;
  last_event_seq: number;
  created_at: string;
  updated_at: string;
}

/** `members`: the fixed roster of a team. */
export interface MembersTable {
  id: string;
  team_id: string;
  position: number;
  name: string;
  agent_id: string;
  conversation_id: string;
}

/** `jobs`: requests and receipts; `unfinished` (1/0) keeps the planning indexes small. */
export interface JobsTable {
  seq: Generated<SeqValue>;
  id: string;
  team_id: string;
  owner: string;
  kind: string;
  phase: string;
  unfinished: number;
  member_id: string | null;
  conversation_id: string;
  requester_member_id: string | null;
  requester_conversation_id: string | null;
  /** '' for a person, else the requester conversation id (NULL would defeat the unique index). */
  requester_key: string;
  parent_id: string | null;
  root_id: string;
  client_key: string;
  text: string;
  input_json: string | null;
  run_key: string | null;
  run_id: string | null;
  pending_input_json: string | null;
  pending_response_json: string | null;
  result_text: string | null;
  result_truncated: number | null;
  error: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  updated_at: string;
}

/** `record_messages`: the shared record, newest 100 kept per team. */
export interface RecordMessagesTable {
  seq: Generated<SeqValue>;
  id: string;
  team_id: string;
  kind: string;
  job_id: string | null;
  member_id: string | null;
  from_member_id: string | null;
  text: string;
  truncated: number;
  created_at: string;
}

/** `team_events`: the per-team event log (seq from `teams.last_event_seq`). */
export interface TeamEventsTable {
  team_id: string;
  seq: number;
  kind: string;
  job_id: string | null;
  record_id: string | null;
  member_id: string | null;
  created_at: string;
}

/** `conversation_messages`: member conversations; kept when a team is deleted. */
export interface ConversationMessagesTable {
  seq: Generated<SeqValue>;
  id: string;
  conversation_id: string;
  role: string;
  text: string | null;
  tool_name: string | null;
  job_id: string | null;
  created_at: string;
}

/** `scheduler_state`: the single row (id 1) holding the planner's round state. */
export interface SchedulerStateTable {
  id: number;
  round_json: string;
  updated_at: string | null;
}

/** `runtime_runs`: owned by the agent runtimes (idempotent runs by key). */
export interface RuntimeRunsTable {
  run_key: string;
  run_id: string;
  runtime: string;
  conversation_id: string;
  job_id: string | null;
  state: string;
  state_json: string | null;
  created_at: string;
  updated_at: string;
}

/** The whole schema as Kysely sees it; runtimes import it to reach `runtime_runs`. */
export interface Database {
  teams: TeamsTable;
  members: MembersTable;
  jobs: JobsTable;
  record_messages: RecordMessagesTable;
  team_events: TeamEventsTable;
  conversation_messages: ConversationMessagesTable;
  scheduler_state: SchedulerStateTable;
  runtime_runs: RuntimeRunsTable;
}
