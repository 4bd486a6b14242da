import { ErrorCode } from '../errors/codes.js';
import { DomainError } from '../errors/domain-error.js';
import { Limits } from '../limits/limits.js';
import { asJobId, asMemberId } from '../model/ids.js';
import type { Team } from '../model/team.js';
import { decodeCursor, encodeCursor, hashFilter, pageSize } from '../pagination/cursor.js';
import type { TeamReadFilter } from '../ports/team-store.js';
import { validateQuery } from '../services/query.js';
import { foldSearchText } from './search-fold.js';

/** Arguments of a paged team read, as GraphQL and the tools (after renaming) pass them. */
export interface TeamReadArgs {
  readonly memberId?: string | null;
  readonly jobId?: string | null;
  readonly query?: string | null;
  readonly limit?: number | null;
  readonly cursor?: string | null;
}

/** How the caller names the id filters in error details (`member_id` for tools, `memberId` for GraphQL). */
export interface ReadFieldNames {
  readonly memberId: string;
  readonly jobId: string;
}

/** The lists a read cursor can belong to. */
export type TeamReadList = 'history' | 'results';

/** A validated paged read: the store filter, page size, anchor and the cursor scope. */
export interface ParsedTeamRead {
  readonly filter: TeamReadFilter;
  readonly limit: number;
  /** Exclusive anchor decoded from the cursor; null for the first page. */
  readonly beforeSeq: number | null;
  /** Mints the cursor that resumes after the item with this seq. */
  cursorAfter(seq: number): string;
}

const optionalId = (value: unknown, field: string): string | null => {
  if (value === null || value === undefined) return null;
  if (typeof value !== 'string' || value.length === 0 || value.length > 128) {
    throw new DomainError(ErrorCode.INVALID_INPUT, `${field} must be an id.`, { field });
  }
  return value;
};

/**
 * Validates the arguments of a paged read of `team`.
 *
 * @remarks The cursor is bound to the list, the team and the filters (a hash of all three), so
 * reusing it with other filters is CURSOR_MISMATCH. The query is literal: an empty one means no
 * query; a non-empty one is at most `Limits.historyQueryChars` characters.
 * @throws DomainError INVALID_INPUT (`field` in the caller's naming), CURSOR_MISMATCH.
 */
export function parseTeamRead(
  team: Team,
  list: TeamReadList,
  args: TeamReadArgs,
  fields: ReadFieldNames = { memberId: 'member_id', jobId: 'job_id' },
): ParsedTeamRead {
  const memberId = optionalId(args.memberId, fields.memberId);
  const jobId = optionalId(args.jobId, fields.jobId);
  const rawQuery = args.query === null || args.query === undefined ? '' : args.query;
  const query = validateQuery(rawQuery, Limits.historyQueryChars);
  const limit = pageSize(args.limit ?? undefined, Limits.pageSize.default, Limits.pageSize.max, 'limit');
  const filter: TeamReadFilter = {
    memberId: memberId === null ? null : asMemberId(memberId),
    jobId: jobId === null ? null : asJobId(jobId),
    query: query.length === 0 ? null : foldSearchText(query),
  };
  const hash = hashFilter({ team: team.id, memberId: filter.memberId, jobId: filter.jobId, query: filter.query });
  const cursor = args.cursor === null || args.cursor === undefined ? null : args.cursor;
  if (cursor !== null && typeof cursor !== 'string') {
    throw new DomainError(ErrorCode.INVALID_INPUT, 'cursor must be a string.', { field: 'cursor' });
  }
  const beforeSeq = cursor === null ? null : decodeCursor(cursor, list, hash, 'cursor');
  return {
    filter,
    limit,
    beforeSeq,
    cursorAfter: (seq) => encodeCursor({ kind: list, seq, filter: hash }),
  };
}
