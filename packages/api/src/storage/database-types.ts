import type { Generated } from 'kysely';
import type {
  MemberSpawnsTable,
  SpendReservationsTable,
  TasksTable,
  TeamBudgetsTable,
  TeamMessageDeliveriesTable,
  TeamMessagesTable,
  ToolRequestsTable,
} from './database-types-teamwork.js';

export type {
  MemberSpawnsTable,
  SpendReservationsTable,
  TasksTable,
  TeamBudgetsTable,
  TeamMessageDeliveriesTable,
  TeamMessagesTable,
  ToolRequestsTable,
} from './database-types-teamwork.js';

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
  /** Free text, or null without a role. */
  role: string | null;
  /** 1 for the team's lead, else 0. */
  is_lead: Generated<number>;
  /** When the member was retired, or null. */
  retired_at: string | null;
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
  /** `foldSearchText(text)` (migration 0002). */
  text_folded: string | null;
  /** `foldSearchText(result_text)` (migration 0002). */
  result_folded: string | null;
  error: string | null;
  /** `Job.errorCode` (migration 0010). */
  error_code: Generated<string | null>;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  updated_at: string;
  /** The server incarnation driving this active job, or null (migration 0005). */
  lease_server: Generated<string | null>;
  /** Fencing token: incremented by every claim of the job (migration 0005). */
  lease_fence: Generated<SeqValue>;
  /** The `ChangeWait` of a WAITING_CHANGE job as JSON, else null (migration 0011). */
  wait_json: Generated<string | null>;
  /** Its `afterSeq` and `deadline`, compared by admission (migration 0011). */
  wait_after_seq: Generated<SeqValue | null>;
  wait_deadline: Generated<string | null>;
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
  /** `foldSearchText(text)` (migration 0002). */
  text_folded: string | null;
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
  /** Database-wide increasing id on PostgreSQL (`bigserial`); NULL on SQLite (migration 0005). */
  change_id: Generated<SeqValue | null>;
  /** The message of a MESSAGE_SENT or MESSAGE_DELIVERED event (migration 0008). */
  message_id: Generated<string | null>;
  /** The task of a TASK_CHANGED (migration 0009). */
  task_id: Generated<string | null>;
  /** Why the system changed the subject, or NULL (migration 0009). */
  reason: Generated<string | null>;
}

/** `server_leases`: one row per running server incarnation, kept alive by its heartbeat (migration 0005). */
export interface ServerLeasesTable {
  server_id: string;
  host: string;
  started_at: string;
  renewed_at: string;
  /** Past this (milliseconds since the epoch, the servers' clocks) the server counts as dead. */
  expires_at_ms: SeqValue;
}

/** `team_deletions`: a tombstone per deleted team, read by other servers' change feeds (migration 0005). */
export interface TeamDeletionsTable {
  team_id: string;
  owner: string;
  /** The seq the deletion was announced with (one past the team's last event). */
  seq: number;
  /** From the change id sequence of `team_events` on PostgreSQL; NULL on SQLite. */
  change_id: Generated<SeqValue | null>;
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

/** `job_responses`: answer keys used per job, with the hash of the answer (migration 0003). */
export interface JobResponsesTable {
  job_id: string;
  client_request_id: string;
  team_id: string;
  fingerprint: string;
  created_at: string;
}

/** `openai_messages`: the `openai` runtime's provider-shaped conversation log (migration 0004). */
export interface OpenAiMessagesTable {
  seq: Generated<SeqValue>;
  id: string;
  conversation_id: string;
  run_id: string;
  /** Position within the run; unique per run so a replay cannot write a step twice. */
  step: number;
  job_id: string | null;
  role: string;
  content: string | null;
  tool_calls_json: string | null;
  tool_call_id: string | null;
  tool_name: string | null;
  created_at: string;
}

/** `model_usage`: tokens and cost of one answered model call (migration 0004). */
export interface ModelUsageTable {
  id: string;
  team_id: string;
  job_id: string;
  conversation_id: string;
  model: string;
  input_tokens: number;
  /** Of `input_tokens`, those read from the provider's prompt cache (migration 0017; 0 before it). */
  cached_input_tokens: Generated<number>;
  output_tokens: number;
  cost: number;
  created_at: string;
}

/** `member_run_tokens`: SHA-256 hashes of the tokens issued to member runs (migration 0002). */
export interface MemberRunTokensTable {
  token_hash: string;
  job_id: string;
  team_id: string;
  created_at: string;
}

/** `a2a_contexts`: the A2A context of each member conversation run by a remote agent (migration 0006). */
export interface A2aContextsTable {
  conversation_id: string;
  context_id: string;
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
  member_run_tokens: MemberRunTokensTable;
  openai_messages: OpenAiMessagesTable;
  model_usage: ModelUsageTable;
  job_responses: JobResponsesTable;
  server_leases: ServerLeasesTable;
  team_deletions: TeamDeletionsTable;
  a2a_contexts: A2aContextsTable;
  team_messages: TeamMessagesTable;
  team_message_deliveries: TeamMessageDeliveriesTable;
  tasks: TasksTable;
  member_spawns: MemberSpawnsTable;
  team_budgets: TeamBudgetsTable;
  spend_reservations: SpendReservationsTable;
  tool_requests: ToolRequestsTable;
}
