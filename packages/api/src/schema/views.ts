import type { AgentDefinition, JobView, Member, RecordMessage, Task, Team, TeamMessage } from '@agent-teams/core';

// What the schema's objects resolve from, when it is not a core type as it is.

/** One resolved event of `teamEvents`, its entity already loaded. */
export type TeamEventView =
  | { readonly __typename: 'JobChanged'; readonly seq: number; readonly team: Team; readonly job: JobView }
  | {
      readonly __typename: 'RecordAppended';
      readonly seq: number;
      readonly team: Team;
      readonly message: RecordMessage;
    }
  | { readonly __typename: 'MemberChanged'; readonly seq: number; readonly team: Team; readonly member: Member }
  | { readonly __typename: 'TeamChanged'; readonly seq: number; readonly team: Team }
  | { readonly __typename: 'MessageSent'; readonly seq: number; readonly team: Team; readonly message: TeamMessage }
  | {
      readonly __typename: 'MessageDelivered';
      readonly seq: number;
      readonly team: Team;
      readonly message: TeamMessage;
      readonly member: Member;
      readonly job: JobView;
    }
  | {
      readonly __typename: 'TaskChanged';
      readonly seq: number;
      readonly team: Team;
      readonly task: Task;
      readonly reason: string | null;
    }
  // Team lifecycle (decision 0165).
  | { readonly __typename: 'MemberSpawned'; readonly seq: number; readonly team: Team; readonly member: Member }
  | { readonly __typename: 'MemberRetired'; readonly seq: number; readonly team: Team; readonly member: Member }
  | { readonly __typename: 'TeamClosed'; readonly seq: number; readonly team: Team };

/** One progress notice of `jobProgress`. */
export interface JobProgressView {
  readonly job: JobView;
  readonly textDelta: string | null;
  readonly toolCall: string | null;
}

/** Anything `node(id)` can answer. */
export type NodeShape = Team | Member | JobView | AgentDefinition | TeamMessage | Task;
