import { ErrorCode } from '@agent-teams/core';
import { describe, expect, it } from 'vitest';
import { domainError, toolTeam } from './core-harness.js';

/** The tool team (`toolTeam`), and the refusal a member gets calling a tool. */
async function team() {
  const { call } = await toolTeam();
  /** The code, the `field` and the message of the refusal `who` gets calling `name`. */
  const refusal = async (who: number, name: string, args: Record<string, unknown>) => {
    const error = await domainError(() => call(who, name, args));
    return { code: error.code, field: error.details.field, message: error.message };
  };
  return { call, refusal };
}

const LEAD = 0;
const ANN = 1;
const BOB = 2;

describe('lead-only tools check their arguments’ types before the caller’s role', () => {
  // Each case: a call whose argument has the wrong type (or a required one is missing).
  const malformed: readonly [string, Record<string, unknown>, string][] = [
    ['team_spawn', { name: 5, agent: 'writer', request_id: 's1' }, 'name'],
    ['team_spawn', { name: 'Cy', agent: 'writer' }, 'request_id'],
    ['team_spawn', { name: 'Cy', agent: 'writer', role: ['a'], request_id: 's1' }, 'role'],
    ['team_retire', { member: 7 }, 'member'],
    ['team_retire', {}, 'member'],
    ['team_close', { reason: 42 }, 'reason'],
    ['team_interrupt', { member: 'Lead', reason: { why: 'x' } }, 'reason'],
    ['team_interrupt', { reason: 'stop' }, 'member'],
  ];

  it('answers INVALID_INPUT naming the argument to a member who is not the lead, as to the lead', async () => {
    const { refusal } = await team();
    for (const [name, args, field] of malformed) {
      expect(await refusal(ANN, name, args), `${name} ${JSON.stringify(args)}`).toMatchObject({
        code: ErrorCode.INVALID_INPUT,
        field,
      });
      expect(await refusal(LEAD, name, args), `${name} ${JSON.stringify(args)} (lead)`).toMatchObject({
        code: ErrorCode.INVALID_INPUT,
        field,
      });
    }
  });

  it('still answers NOT_LEAD to well-typed calls, value rules and lookups included', async () => {
    const { refusal } = await team();
    const wellTyped: readonly [string, Record<string, unknown>][] = [
      ['team_spawn', { name: 'Cy', agent: 'writer', request_id: 's1' }],
      // Well typed but breaking a value rule (blank name, unknown member): the role comes first.
      ['team_spawn', { name: ' ', agent: 'nobody', request_id: 's1' }],
      ['team_retire', { member: 'Nobody' }],
      ['team_retire', { member: 'Ann' }],
      ['team_close', {}],
      ['team_interrupt', { member: 'Lead', reason: 'stop' }],
    ];
    for (const [name, args] of wellTyped) {
      expect((await refusal(ANN, name, args)).code, `${name} ${JSON.stringify(args)}`).toBe(ErrorCode.NOT_LEAD);
    }
    expect(await refusal(LEAD, 'team_spawn', { name: ' ', agent: 'writer', request_id: 's1' })).toMatchObject({
      code: ErrorCode.INVALID_INPUT,
      field: 'name',
    });
  });
});

describe('member tools name their own arguments in the shared rules’ errors', () => {
  it('names task_id, depends_on and expected_revision, never taskId, dependsOn or expectedRevision', async () => {
    const { call, refusal } = await team();
    const created = (await call(ANN, 'task_create', { title: 'A' })).task as { id: string };
    const later = (await call(ANN, 'task_create', { title: 'B', depends_on: [created.id] })).task as { id: string };

    expect(await refusal(ANN, 'task_claim', { task_id: 'task_nope', expected_revision: 1 })).toMatchObject({
      code: ErrorCode.NOT_FOUND,
      field: 'task_id',
    });
    expect(await refusal(ANN, 'task_create', { title: 'C', depends_on: ['task_nope'] })).toMatchObject({
      code: ErrorCode.INVALID_INPUT,
      field: 'depends_on',
    });
    const cycle = { task_id: created.id, expected_revision: 1, depends_on: [later.id] };
    expect(await refusal(ANN, 'task_update', cycle)).toMatchObject({ code: ErrorCode.TASK_CYCLE, field: 'depends_on' });
    const stale = await domainError(() => call(BOB, 'task_claim', { task_id: created.id, expected_revision: 9 }));
    expect(stale).toMatchObject({
      code: ErrorCode.TASK_STALE_REVISION,
      details: { field: 'expected_revision', currentRevision: 1 },
    });
    // Only the creator or the lead may cancel: FORBIDDEN names the task argument.
    expect(await refusal(BOB, 'task_cancel', { task_id: created.id, expected_revision: 1 })).toMatchObject({
      code: ErrorCode.FORBIDDEN,
      field: 'task_id',
    });
    await call(BOB, 'task_claim', { task_id: created.id, expected_revision: 1 });
    expect(await refusal(ANN, 'task_claim', { task_id: created.id, expected_revision: 2 })).toMatchObject({
      code: ErrorCode.TASK_CLAIMED,
      field: 'task_id',
    });
    await call(ANN, 'task_cancel', { task_id: later.id, expected_revision: 1 });
    const transition = await refusal(ANN, 'task_cancel', { task_id: later.id, expected_revision: 2 });
    expect(transition).toMatchObject({ code: ErrorCode.INVALID_TRANSITION, field: 'task_id' });
  });

  it('names request_id for a reused key of team_spawn and team_broadcast, never clientRequestId', async () => {
    const { call, refusal } = await team();
    await call(LEAD, 'team_spawn', { name: 'Cy', agent: 'writer', request_id: 'spawn-1' });
    const spawn = await refusal(LEAD, 'team_spawn', { name: 'Dee', agent: 'writer', request_id: 'spawn-1' });
    expect(spawn).toMatchObject({ code: ErrorCode.IDEMPOTENCY_CONFLICT, field: 'request_id' });
    await call(ANN, 'team_broadcast', { text: 'first', request_id: 'all-1' });
    const broadcast = await refusal(ANN, 'team_broadcast', { text: 'second', request_id: 'all-1' });
    expect(broadcast).toMatchObject({ code: ErrorCode.IDEMPOTENCY_CONFLICT, field: 'request_id' });
    for (const answer of [spawn, broadcast]) expect(answer.message).not.toMatch(/clientRequestId/);
  });
});
