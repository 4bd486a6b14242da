/**
 * Branded identifiers. Values of these types are minted only by the {@link IdGenerator} port or
 * by the parse functions below, so a `JobId` can never be passed where a `TeamId` is expected.
 */
import type { TaskId } from '../tasks/task.js';

declare const brand: unique symbol;

/** A string tagged with a compile-time brand. */
export type Brand<T, B extends string> = T & { readonly [brand]: B };

/** Authenticated principal that owns teams (from the config file's bearer tokens). */
export type OwnerId = Brand<string, 'OwnerId'>;
export type TeamId = Brand<string, 'TeamId'>;
export type MemberId = Brand<string, 'MemberId'>;
export type JobId = Brand<string, 'JobId'>;
export type RecordId = Brand<string, 'RecordId'>;
/** A member's persistent conversation in its agent runtime. */
export type ConversationId = Brand<string, 'ConversationId'>;
/** One run of an agent runtime (a turn, or its continuation). */
export type RunId = Brand<string, 'RunId'>;
/** A team message (`team_message`, `sendMessage`). */
export type MessageId = Brand<string, 'MessageId'>;
/** Catalog id of a configured agent (`agents[].name` in the config file). */
export type AgentId = Brand<string, 'AgentId'>;

/** The kinds of id the {@link IdGenerator} mints. */
export const IdKind = {
  team: 'team',
  member: 'member',
  job: 'job',
  record: 'record',
  conversation: 'conversation',
  message: 'message',
  task: 'task',
} as const;
export type IdKind = (typeof IdKind)[keyof typeof IdKind];

/** Port: mints fresh, unique ids. Production uses random ids; tests use sequential ones. */
export interface IdGenerator {
  teamId(): TeamId;
  memberId(): MemberId;
  jobId(): JobId;
  recordId(): RecordId;
  conversationId(): ConversationId;
  messageId(): MessageId;
  /** A task of a team's board (`task_…`). */
  taskId(): TaskId;
}

/** Tags an externally supplied string (already checked for shape) as an owner id. */
export const asOwnerId = (value: string): OwnerId => value as OwnerId;
/** Tags a string read from storage or a trusted adapter as the given id type. */
export const asTeamId = (value: string): TeamId => value as TeamId;
export const asMemberId = (value: string): MemberId => value as MemberId;
export const asJobId = (value: string): JobId => value as JobId;
export const asRecordId = (value: string): RecordId => value as RecordId;
export const asConversationId = (value: string): ConversationId => value as ConversationId;
export const asRunId = (value: string): RunId => value as RunId;
export const asMessageId = (value: string): MessageId => value as MessageId;
export const asAgentId = (value: string): AgentId => value as AgentId;
