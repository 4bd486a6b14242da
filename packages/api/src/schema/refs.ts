import {
  type ActivityResult,
  type AgentDefinition,
  type CancelOutcome,
  type ConversationMessage,
  type HistoryPageView,
  InputKind,
  type InputRequest,
  type Job,
  JobKind,
  type JobResultView,
  JobStatus,
  type JobView,
  type Member,
  MemberStatus,
  type MentionTargetView,
  RecordKind,
  type RecordMessage,
  type ResultPageView,
  type ResultRecordView,
  type ResultSummaryView,
  type Task,
  type Team,
  type TeamCapacity,
  type TeamContextView,
  type TeamMessage,
  TeamStatus,
} from '@agent-teams/core';
import type { Builder } from './builder.js';
import { addConnection, addPageInfo } from './connection.js';
import type { JobProgressView, NodeShape, TeamEventView } from './views.js';

/**
 * Creates the refs of every contract type, so each schema file can point at types another file
 * implements without import cycles.
 */
export function createRefs(builder: Builder) {
  const PageInfo = addPageInfo(builder);
  // A job as a page reads it (no frozen input: no field shows it); a whole Job is one too.
  const Job = builder.objectRef<JobView>('Job');
  const TaskRef = builder.objectRef<Task>('Task');
  return {
    Task: TaskRef,
    TaskConnection: addConnection(builder, PageInfo, 'Task', TaskRef, { totalCount: true }),
    Node: builder.interfaceRef<NodeShape>('Node'),
    PageInfo,
    Job,
    /** Shared by `Viewer.inbox`, `Team.jobs` and `ActivityPage.jobs`. */
    JobConnection: addConnection(builder, PageInfo, 'Job', Job, { totalCount: true }),
    Viewer: builder.objectRef<{ readonly id: string }>('Viewer'),
    Agent: builder.objectRef<AgentDefinition>('Agent'),
    MentionTarget: builder.objectRef<MentionTargetView>('MentionTarget'),
    Team: builder.objectRef<Team>('Team'),
    TeamCapacity: builder.objectRef<TeamCapacity>('TeamCapacity'),
    Member: builder.objectRef<Member>('Member'),
    TeamMessage: builder.objectRef<TeamMessage>('TeamMessage'),
    ConversationMessage: builder.objectRef<ConversationMessage>('ConversationMessage'),
    Requester: builder.objectRef<Job['requester']>('Requester'),
    InputRequest: builder.objectRef<InputRequest>('InputRequest'),
    JobResult: builder.objectRef<JobResultView>('JobResult'),
    ActivityUnchanged: builder.objectRef<Extract<ActivityResult, { unchanged: true }>>('ActivityUnchanged'),
    ActivityPage: builder.objectRef<Extract<ActivityResult, { unchanged: false }>>('ActivityPage'),
    RecordMessage: builder.objectRef<RecordMessage>('RecordMessage'),
    TeamContext: builder.objectRef<TeamContextView>('TeamContext'),
    HistoryPage: builder.objectRef<HistoryPageView>('HistoryPage'),
    ResultSummary: builder.objectRef<ResultSummaryView>('ResultSummary'),
    ResultSearchPage: builder.objectRef<ResultPageView>('ResultSearchPage'),
    ResultRecord: builder.objectRef<ResultRecordView>('ResultRecord'),
    CancelJobPayload: builder.objectRef<CancelOutcome>('CancelJobPayload'),
    TeamEvent: builder.interfaceRef<TeamEventView>('TeamEvent'),
    JobProgress: builder.objectRef<JobProgressView>('JobProgress'),
    TeamStatus: builder.enumType(TeamStatus, {
      name: 'TeamStatus',
      values: {
        CREATING: { description: 'Member conversations are still being ensured; work is accepted but not admitted.' },
        DISCONNECTED: {
          description: 'A runtime reported lost access or an ambiguous failure; queued work waits for reconnectTeam.',
        },
        CLOSED: { description: 'Accepts no new requests, messages or tasks (TEAM_CLOSED); stays readable.' },
      },
    }),
    MemberStatus: builder.enumType(MemberStatus, { name: 'MemberStatus' }),
    MessageRole: builder.enumType({ USER: 'USER', ASSISTANT: 'ASSISTANT', TOOL: 'TOOL' } as const, {
      name: 'MessageRole',
    }),
    JobKind: builder.enumType(JobKind, {
      name: 'JobKind',
      values: {
        MESSAGE: { description: 'A follow-up turn started by team messages.' },
        BROADCAST_RECEIPT: {
          description: 'The one receipt a broadcaster gets when every broadcast request has finished.',
        },
      },
    }),
    JobStatus: builder.enumType(JobStatus, {
      name: 'JobStatus',
      values: {
        WAITING_CHANGE: {
          description: 'Paused in wait_for_change: holds no active slot; resumes on a team change or its deadline.',
        },
      },
    }),
    InputKind: builder.enumType(InputKind, { name: 'InputKind' }),
    RecordKind: builder.enumType(RecordKind, { name: 'RecordKind' }),
  };
}

/** The refs of every contract type. */
export type Refs = ReturnType<typeof createRefs>;
