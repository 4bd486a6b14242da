import { describe, expect, it } from 'vitest';
import { ErrorCode } from './codes.js';

/** The codes of `shared/contract/README.md` ("Error codes"): clients branch on these. */
const CONTRACT_CODES = [
  'UNAUTHENTICATED',
  'NOT_FOUND',
  'INVALID_INPUT',
  'MEMBER_COUNT',
  'DUPLICATE_MEMBER_NAME',
  'TEAM_LIMIT',
  'REQUEST_LIMIT',
  'IDEMPOTENCY_CONFLICT',
  'SELF_REQUEST',
  'NOT_WAITING_INPUT',
  'INPUT_CHANGED',
  'INVALID_RESPONSE',
  'PENDING_WORK',
  'CURSOR_MISMATCH',
  'FORBIDDEN',
  'CATALOG_UNAVAILABLE',
] as const;

/** The codes of the teamwork contract (lead, roles, mailbox, task board). */
const TEAMWORK_CODES = [
  'LEAD_COUNT',
  'NOT_LEAD',
  'MEMBER_RETIRED',
  'TEAM_CLOSED',
  'MAILBOX_FULL',
  'TASK_STALE_REVISION',
  'TASK_BLOCKED',
  'TASK_CLAIMED',
  'TASK_CYCLE',
  'TASK_LIMIT',
] as const;

describe('ErrorCode table', () => {
  it('holds every contract code with its own name as its value', () => {
    const table: Record<string, string> = ErrorCode;
    for (const code of [...CONTRACT_CODES, ...TEAMWORK_CODES]) expect(table[code]).toBe(code);
  });

  it('is add-only: the full list, in order, is the contract codes followed by the additions', () => {
    // Append new codes at the end of this list; never remove, rename or reorder one.
    expect(Object.entries(ErrorCode)).toEqual(
      [
        ...CONTRACT_CODES,
        'NOT_AVAILABLE_YET',
        'INVALID_TRANSITION',
        'STALE_LEASE',
        'RESUME_EXPIRED',
        'QUERY_LIMIT',
        'SUBSCRIPTION_LIMIT',
        'HANDOFF_LOOP',
        'RATE_LIMITED',
        ...TEAMWORK_CODES,
      ].map((code) => [code, code]),
    );
  });
});
