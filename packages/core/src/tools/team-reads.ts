import { fitToBudget } from '../budget/fit-to-budget.js';
import { recordToContextJson } from '../context/team-context.js';
import { Limits } from '../limits/limits.js';
import type { JobId, MemberId } from '../model/ids.js';
import type { RecordMessage } from '../model/record.js';
import type { Member, Team } from '../model/team.js';
import type { JobReads, RecordReads } from '../ports/team-store.js';
import { truncateUtf8, utf8ByteLength } from '../text/text-measure.js';
import { type ParsedTeamRead, parseTeamRead, type ReadFieldNames, type TeamReadArgs } from './read-args.js';
import {
  type HistoryPageView,
  type ResultPageView,
  type ResultRecordView,
  type ResultSummaryView,
  resultRecordJson,
  resultRecordOf,
  resultSummaryJson,
  resultSummaryOf,
} from './result-views.js';

/** A read's answer twice: as views (GraphQL) and as the tool's snake_case JSON, both budgeted. */
export interface TeamReadAnswer<V> {
  readonly view: V;
  readonly json: unknown;
}

/** The team's roster by id (names for the tool answers). */
export type Roster = ReadonlyMap<MemberId, Member>;

const cut = (text: string, maxBytes: number) => truncateUtf8(text, maxBytes).text;

/** The cursor to render for a prefix: after its last item, or a longest-case stand-in when empty. */
function nextCursor<T extends { readonly seq: number }>(read: ParsedTeamRead, items: readonly T[], more: boolean) {
  if (!more) return null;
  const last = items.at(-1);
  return read.cursorAfter(last === undefined ? Number.MAX_SAFE_INTEGER : last.seq);
}

/**
 * `read_team_history` / `Team.history`: the retained record, newest first, filters applied by the
 * store before paging, the page cut to the tool budget (24,000 bytes of JSON).
 */
export async function readHistory(
  store: Pick<RecordReads, 'pageRecords'>,
  team: Team,
  args: TeamReadArgs,
  fields?: ReadFieldNames,
): Promise<TeamReadAnswer<HistoryPageView>> {
  const read = parseTeamRead(team, 'history', args, fields);
  const page = await store.pageRecords(team.id, read.filter, { limit: read.limit, beforeSeq: read.beforeSeq });
  const render = (records: readonly RecordMessage[], more: boolean) => ({
    records: records.map(recordToContextJson),
    next_cursor: nextCursor(read, records, more),
    cursor_expired: false,
  });
  if (!page.anchorFound) {
    return {
      view: { records: [], nextCursor: null, cursorExpired: true },
      json: { records: [], next_cursor: null, cursor_expired: true },
    };
  }
  const fitted = fitToBudget({
    items: page.items,
    hasMore: page.hasMore,
    maxBytes: Limits.toolResponseBytes,
    render,
    trim: (record, maxTextBytes) => ({ ...record, text: cut(record.text, maxTextBytes), truncated: true }),
    textBytes: (record) => utf8ByteLength(record.text),
  });
  const view = { records: fitted.items, nextCursor: nextCursor(read, fitted.items, fitted.more), cursorExpired: false };
  return { view, json: fitted.answer };
}

/**
 * `search_team_results` / `Team.results`: finished requests (never receipts), newest first by
 * request order, matching the filters on the task text or the stored answer, with 500-byte
 * excerpts, cut to the tool budget.
 */
export async function readResults(
  store: Pick<RecordReads, 'searchResults'>,
  team: Team,
  roster: Roster,
  args: TeamReadArgs,
  fields?: ReadFieldNames,
): Promise<TeamReadAnswer<ResultPageView>> {
  const read = parseTeamRead(team, 'results', args, fields);
  const page = await store.searchResults(team.id, read.filter, { limit: read.limit, beforeSeq: read.beforeSeq });
  if (!page.anchorFound) {
    return {
      view: { results: [], nextCursor: null, cursorExpired: true },
      json: { results: [], next_cursor: null, cursor_expired: true },
    };
  }
  type Item = ResultSummaryView & { readonly seq: number };
  // Not a literal that begins with a spread (see `UNADMITTED`): one per item.
  const items: Item[] = page.items.map((job) => Object.assign({}, resultSummaryOf(job), { seq: job.seq }));
  const render = (results: readonly Item[], more: boolean) => ({
    results: results.map((summary) => resultSummaryJson(summary, roster)),
    next_cursor: nextCursor(read, results, more),
    cursor_expired: false,
  });
  const fitted = fitToBudget<Item>({
    items,
    hasMore: page.hasMore,
    maxBytes: Limits.toolResponseBytes,
    render,
    trim: (item, maxTextBytes) => ({
      ...item,
      requestExcerpt: cut(item.requestExcerpt, maxTextBytes),
      resultExcerpt: item.resultExcerpt === null ? null : cut(item.resultExcerpt, maxTextBytes),
      truncated: true,
    }),
    textBytes: (item) => Math.max(utf8ByteLength(item.requestExcerpt), utf8ByteLength(item.resultExcerpt ?? '')),
  });
  const results = fitted.items.map(({ seq: _seq, ...summary }) => summary);
  return {
    view: { results, nextCursor: nextCursor(read, fitted.items, fitted.more), cursorExpired: false },
    json: fitted.answer,
  };
}

/**
 * `read_team_result` / `Team.result`: one request or receipt of the team by id, or null (absent,
 * or another team's). The answer text is cut further, and flagged, only if its JSON would pass
 * the tool budget (heavy escaping).
 */
export async function readResult(
  store: Pick<JobReads, 'findJob'>,
  team: Team,
  roster: Roster,
  jobId: JobId,
): Promise<TeamReadAnswer<ResultRecordView> | null> {
  const job = await store.findJob(team.owner, jobId);
  if (job === null || job.teamId !== team.id) return null;
  const fitted = fitToBudget<ResultRecordView>({
    items: [resultRecordOf(job)],
    hasMore: false,
    maxBytes: Limits.toolResponseBytes,
    render: (records) => (records[0] === undefined ? null : resultRecordJson(records[0], roster)),
    trim: (record, maxTextBytes) => ({
      ...record,
      result: {
        ...record.result,
        text: record.result.text === null ? null : cut(record.result.text, maxTextBytes),
        truncated: true,
      },
    }),
    textBytes: (record) => utf8ByteLength(record.result.text ?? ''),
  });
  const view = fitted.items[0] ?? resultRecordOf(job);
  return { view, json: fitted.answer };
}
