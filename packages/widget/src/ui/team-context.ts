import { type Accessor, createContext, useContext } from 'solid-js';
import type { JobProgress } from '../job-progress.js';
import type { TeamFeed, UsageView } from '../team-feed.js';

/** A member as the workspace reads it (`TEAM_QUERY`). */
export interface TeamMember {
  id: string;
  name: string;
  status: string;
  conversationId: string;
  /** Free text shown in the roster (null: none). */
  role: string | null;
  isLead: boolean;
  agent: { title: string; name: string };
  usage: UsageView;
}

/** The team as the workspace reads it (`TEAM_QUERY`). */
export interface TeamData {
  id: string;
  name: string;
  goal: string;
  status: string;
  usage: UsageView;
  members: TeamMember[];
}

/** Usage of the team and of each member, by member id (`USAGE_QUERY`). */
export interface UsageTotals {
  team: UsageView;
  members: Record<string, UsageView>;
}

/** The member whose conversation to show. */
export type MemberRef = Pick<TeamMember, 'id' | 'name' | 'conversationId'>;

/** What the parts of one team's workspace share. */
export interface TeamContextValue {
  readonly teamId: string;
  readonly team: Accessor<TeamData>;
  readonly feed: TeamFeed;
  readonly progress: JobProgress;
  /** Tokens and cost, read with the team and again whenever a turn ends. */
  readonly usage: Accessor<UsageTotals | null>;
  /** The team status to show: the live one when known, else the one read with the team. */
  readonly status: Accessor<string>;
  /** A member's live status. */
  readonly memberStatus: (member: TeamMember) => string;
  /** Reads the feed again after an action when updates are not live. */
  readonly changed: () => void;
  /** Asks the server to reconnect the team and resubscribes the feed. */
  readonly reconnect: () => Promise<void>;
  /** Opens a member's conversation (the host's, or the built-in view); focus returns to `opener`. */
  readonly openConversation: (member: MemberRef, opener?: HTMLElement) => void;
  /** The teamwork chunk once loaded (its views: messages, the budget, the answer form). */
  readonly chunk: Accessor<TeamworkChunk | undefined>;
}

/** What the teamwork chunk (`teamwork.tsx`) exports; a type only, so nothing of it lands in `widget.js`. */
export type TeamworkChunk = typeof import('./teamwork.js');

export const TeamContext = createContext<TeamContextValue>();

/** The team context; fails loudly outside a workspace. */
export function useTeam(): TeamContextValue {
  const value = useContext(TeamContext);
  if (!value) throw new Error('[agent-teams/widget] useTeam() must be used inside a team workspace');
  return value;
}
