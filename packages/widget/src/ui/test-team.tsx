import { createSignal, type JSX } from 'solid-js';
import { createJobProgress } from '../job-progress.js';
import { createKeyedSignals } from '../keyed-signals.js';
import type { JobView, MessageView, ReceiptView, TeamFeed, UsageView } from '../team-feed.js';
import { type MemberRef, TeamContext, type TeamData, type TeamMember, type UsageTotals } from './team-context.js';
import * as teamwork from './teamwork.js';
import { withContext } from './test-context.js';

/** No model calls. */
export const NO_USAGE: UsageView = { inputTokens: 0, cachedInputTokens: 0, outputTokens: 0, cost: 0, calls: 0 };

/** A member of the test team. */
export const member = (id: string, name: string, status = 'IDLE'): TeamMember => ({
  id,
  name,
  status,
  conversationId: `c-${id}`,
  role: null,
  isLead: false,
  agent: { title: name, name: name.toLowerCase() },
  usage: NO_USAGE,
});

/** A finished request from a person to `to`, with the given changes. */
export function request(id: string, to: TeamMember, changes: Partial<JobView> = {}): JobView {
  return {
    id,
    kind: 'REQUEST',
    status: 'COMPLETED',
    text: `Task ${id}`,
    error: null,
    createdAt: '2026-11-30T04:00:00.000Z',
    conversationId: to.conversationId,
    member: { id: to.id, name: to.name, conversationId: to.conversationId },
    requester: { member: null },
    parent: null,
    input: null,
    usage: NO_USAGE,
    result: { text: 'done' },
    ...changes,
  };
}

/** A team feed whose state the test sets directly (no server, no socket). */
export function fakeFeed() {
  const [order, setOrder] = createSignal<string[]>([]);
  const requests = createKeyedSignals<JobView>();
  const receipts = createKeyedSignals<ReceiptView>();
  const memberStatus = createKeyedSignals<string>();
  const messages = createKeyedSignals<MessageView>();
  const waiting = createKeyedSignals<string>();
  const [teamStatus, setTeamStatus] = createSignal<string | null>(null);
  const feed: TeamFeed = {
    order,
    request: requests.get,
    receipt: receipts.get,
    memberStatus: memberStatus.get,
    message: messages.get,
    putMessage(message) {
      messages.set(message.id, message);
      if (!order().includes(message.id)) setOrder([...order(), message.id]);
    },
    waiting: waiting.get,
    teamStatus,
    setTeamStatus,
    live: () => 'live',
    refresh: async () => {},
    reconnect: () => {},
    stop: () => {},
  };
  return {
    feed,
    /** Adds or replaces a request (and the receipt delivering its result). */
    put(job: JobView, receipt?: ReceiptView) {
      requests.set(job.id, job);
      if (receipt) receipts.set(job.id, receipt);
      if (!order().includes(job.id)) setOrder([...order(), job.id]);
    },
    setMemberStatus: memberStatus.set,
    /** Marks a member as paused in `wait_for_change` by that job ('' clears it). */
    setWaiting: waiting.set,
  };
}

/** What a test may set about the team around the component. */
export interface TeamOptions {
  locale?: string;
  members?: TeamMember[];
  usage?: UsageTotals | null;
  /** The team status before any live one (READY when not given). */
  status?: string;
  reconnect?: () => Promise<void>;
}

/**
 * Renders `ui` inside the widget context (a real API client on the msw endpoint) and a team
 * context with {@link fakeFeed}; returns the feed controls and what the team context was asked.
 */
export function withTeam(ui: () => JSX.Element, options: TeamOptions = {}) {
  const fake = fakeFeed();
  const opened: { member: MemberRef; opener: HTMLElement | undefined }[] = [];
  let changes = 0;
  const team: TeamData = {
    id: 't1',
    name: 'Team',
    goal: 'Goal',
    status: options.status ?? 'READY',
    usage: NO_USAGE,
    members: options.members ?? [member('m1', 'Research'), member('m2', 'Review')],
  };
  const context = withContext(
    () => (
      <TeamContext.Provider
        value={{
          teamId: team.id,
          team: () => team,
          feed: fake.feed,
          progress: createJobProgress(context.api),
          usage: () => options.usage ?? null,
          status: () => fake.feed.teamStatus() ?? team.status,
          memberStatus: (m) =>
            fake.feed.waiting(m.id) ? 'WAITING_CHANGE' : (fake.feed.memberStatus(m.id) ?? m.status),
          changed: () => {
            changes++;
          },
          reconnect: options.reconnect ?? (async () => {}),
          openConversation: (m, opener) => opened.push({ member: m, opener }),
          // The chunk as loaded: the card tests read its answer form at once.
          chunk: () => teamwork,
        }}
      >
        {ui()}
      </TeamContext.Provider>
    ),
    options.locale,
  );
  return { ...context, ...fake, opened, changes: () => changes };
}
