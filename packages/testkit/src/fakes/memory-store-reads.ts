import {
  isTerminal,
  type Job,
  JobKind,
  matchesFolded,
  type NewestFirstPage,
  type NewestFirstPageRequest,
  type RecordMessage,
  type TeamReadFilter,
} from '@agent-teams/core';

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
export function pageRecordsIn(
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
export function searchResultsIn(
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
