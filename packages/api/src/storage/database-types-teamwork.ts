import type { Generated } from 'kysely';
import type { SeqValue } from './database-types.js';

// The tables of teamwork (migrations 0008, 0009, 0011, 0019, 0020) and of budgets (0010), kept beside the
// core tables of `database-types.ts`, which re-exports them for the `Database` interface.

/** `member_spawns`: the idempotency key of each spawn (migration 0011). */
export interface MemberSpawnsTable {
  team_id: string;
  client_key: string;
  member_id: string;
  fingerprint: string;
  created_at: string;
}

/** `tasks`: the team's task board (migration 0009); lists are JSON arrays of strings. */
export interface TasksTable {
  id: string;
  team_id: string;
  seq: number;
  client_request_id: string | null;
  /** The hash of the keyed creation's input (migration 0019); NULL without a key or from before. */
  request_fingerprint: string | null;
  title: string;
  details: string | null;
  status: string;
  revision: number;
  depends_on: string;
  owner_id: string | null;
  write_scope: string;
  created_by: string | null;
  result: string | null;
  created_at: string;
  updated_at: string;
}

/** `tool_requests`: the keys of member tool calls, with what each answered (migration 0020). */
export interface ToolRequestsTable {
  team_id: string;
  /** `tool:<memberId>:<request_id>`. */
  request_key: string;
  fingerprint: string;
  /** The task written or the job interrupted; NULL when the call answered none. */
  answer_id: string | null;
  created_at: string;
}

/** `team_messages`: one row per team message (migration 0008). */
export interface TeamMessagesTable {
  seq: Generated<SeqValue>;
  id: string;
  team_id: string;
  from_member_id: string | null;
  /** The sending member's id, or '' for the owner: with `client_key`, unique per team. */
  sender_key: string;
  client_key: string;
  text: string;
  delivery: string;
  /** JSON array of the recipients' member ids, in the sender's order. */
  recipients_json: string;
  created_at: string;
}

/** `team_message_deliveries`: each recipient's copy of a message (migration 0008). */
export interface TeamMessageDeliveriesTable {
  message_id: string;
  member_id: string;
  team_id: string;
  message_seq: SeqValue;
  /** NULL while undelivered; then the job whose turn received it. */
  job_id: string | null;
  delivered_at: string | null;
}

/** `team_budgets`: a team's spending limits (migration 0010). */
export interface TeamBudgetsTable {
  team_id: string;
  max_tokens: number | string | null;
  max_cost: number | null;
  updated_at: string;
}

/** `spend_reservations`: what each model call in flight may still spend (migration 0010). */
export interface SpendReservationsTable {
  id: string;
  team_id: string;
  owner: string;
  /** UTC day `YYYY-MM-DD` the call counts against. */
  day: string;
  tokens: number | string;
  cost: number;
  created_at: string;
  /** The execution holding it (`SpendReservation.holder`; migration 0023); NULL: none named. */
  holder: string | null;
}
