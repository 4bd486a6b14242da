import {
  type ConversationLog,
  type EventLog,
  isTerminal,
  type Job,
  JobKind,
  matchesFolded,
  type NewestFirstPage,
  type NewestFirstPageRequest,
  type RecordMessage,
  type RecordReads,
  type TeamReadFilter,
} from '@agent-teams/core';
import { type MemoryStoreState, pageOf } from './state.js';

/** A newest-first page of `items` (already filtered, any order) anchored before `beforeSeq`. */
function newestFirst<T extends { readonly seq: number }>(
  items: readonly T[],
  all: readonly { readonly seq: number }[],
  page: NewestFirstPageRequest,
): NewestFirstPage<T> {
  if (page.beforeSeq !== null && !all.some((item) => item.seq === page.beforeSeq)) {
    return { items: [], hasMore: false, anchorFound: false };
  }
  const sorted = [...items]
    .filter((item) => page.beforeSeq === null || item.seq < page.beforeSeq)
    .sort((a, b) => b.seq - a.seq);
  return { items: sorted.slice(0, page.limit), hasMore: sorted.length > page.limit, anchorFound: true };
}

/** `pageRecords` over a team's retained records (see the port). */
function pageRecordsIn(
  records: readonly RecordMessage[],
  filter: TeamReadFilter,
  page: NewestFirstPageRequest,
): NewestFirstPage<RecordMessage> {
  const matching = records.filter(
    (r) =>
      (filter.memberId === null || r.memberId === filter.memberId || r.fromMemberId === filter.memberId) &&
      (filter.jobId === null || r.jobId === filter.jobId) &&
      (filter.query === null || matchesFolded(r.text, filter.query)),
  );
  return newestFirst(matching, records, page);
}

/** `searchResults` over a team's jobs (see the port): finished requests only. */
function searchResultsIn(
  jobs: readonly Job[],
  filter: TeamReadFilter,
  page: NewestFirstPageRequest,
): NewestFirstPage<Job> {
  const matching = jobs.filter(
    (j) =>
      j.kind === JobKind.REQUEST &&
      isTerminal(j.phase) &&
      (filter.memberId === null || j.memberId === filter.memberId || j.requester.memberId === filter.memberId) &&
      (filter.jobId === null || j.id === filter.jobId || j.parentId === filter.jobId || j.rootId === filter.jobId) &&
      (filter.query === null ||
        matchesFolded(j.text, filter.query) ||
        (j.result !== null && matchesFolded(j.result.text, filter.query))),
  );
  return newestFirst(matching, jobs, page);
}

/** The in-memory {@link RecordReads} and {@link EventLog}. */
export function memoryRecordReads(state: MemoryStoreState): RecordReads & EventLog {
  return {
    async recentRecords(teamId, limit) {
      return limit <= 0 ? [] : (state.records.get(teamId) ?? []).slice(-limit);
    },
    async findRecords(recordIds) {
      const all = [...state.records.values()].flat();
      return recordIds.flatMap((id) => all.find((r) => r.id === id) ?? []);
    },
    pageRecords: async (teamId, filter, page) => pageRecordsIn(state.records.get(teamId) ?? [], filter, page),
    searchResults: async (teamId, filter, page) =>
      searchResultsIn(
        [...state.jobs.values()].filter((j) => j.teamId === teamId),
        filter,
        page,
      ),
    async readEvents(teamId, afterSeq, limit) {
      return (state.events.get(teamId) ?? []).filter((e) => e.seq > afterSeq).slice(0, Math.max(0, limit));
    },
  };
}

/** The in-memory {@link ConversationLog}. */
export function memoryConversationLog(state: MemoryStoreState): ConversationLog {
  return {
    async appendConversation(conversationId, messages, now) {
      const list = state.conversations.get(conversationId) ?? [];
      for (const message of messages) {
        state.messageSeq += 1;
        const seq = state.messageSeq;
        list.push({ ...message, id: `message_${seq}`, seq, conversationId, createdAt: now });
      }
      state.conversations.set(conversationId, list);
    },
    async listConversation(conversationId, req) {
      const list = state.conversations.get(conversationId) ?? [];
      return pageOf(
        list.filter((m) => req.afterSeq === null || m.seq > req.afterSeq),
        req.first,
      );
    },
  };
}
