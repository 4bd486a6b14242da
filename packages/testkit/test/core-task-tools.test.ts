import { ErrorCode, jsonBytes, Limits } from '@agent-teams/core';
import { describe, expect, it } from 'vitest';
import { domainError, toolTeam } from './core-harness.js';

/** The team the board's tools are called in (`toolTeam`). */
const board = toolTeam;

type TaskOut = { id: string; revision: number; status: string; owner: string | null };
const taskOf = (answer: Record<string, unknown>) => answer.task as TaskOut;

describe('task tools', () => {
  it('creates, claims and completes with the contract JSON', async () => {
    const { call } = await board();
    const created = await call(1, 'task_create', { title: 'Parser', write_scope: ['src/parser'] });
    expect(created).toEqual({
      task: expect.objectContaining({
        title: 'Parser',
        details: null,
        status: 'open',
        revision: 1,
        depends_on: [],
        owner: null,
        write_scope: ['src/parser'],
        created_by: 'Ann',
        result: null,
      }),
      warnings: [],
    });
    const { id } = taskOf(created);
    const claimed = await call(2, 'task_claim', { task_id: id, expected_revision: 1 });
    expect(claimed).toEqual({ task: expect.objectContaining({ status: 'claimed', owner: 'Bob', revision: 2 }) });
    const done = await call(2, 'task_complete', { task_id: id, expected_revision: 2, result: 'merged' });
    expect(taskOf(done)).toMatchObject({ status: 'done', result: 'merged', revision: 3 });
  });

  it('warns about overlapping scopes, naming the other task', async () => {
    const { call } = await board();
    const first = taskOf(await call(1, 'task_create', { title: 'A', write_scope: ['src'] }));
    const second = await call(2, 'task_create', { title: 'B', write_scope: ['src/api/x.ts'] });
    expect(second.warnings).toEqual([{ kind: 'write_scope_overlap', task_id: first.id, scope: 'src' }]);
  });

  it('refuses a stale write with current_revision in the error details', async () => {
    const { call } = await board();
    const { id } = taskOf(await call(1, 'task_create', { title: 'A' }));
    await call(1, 'task_update', { task_id: id, expected_revision: 1, details: 'more' });
    const error = await domainError(() => call(2, 'task_claim', { task_id: id, expected_revision: 1 }));
    expect(error).toMatchObject({ code: ErrorCode.TASK_STALE_REVISION, details: { currentRevision: 2 } });
  });

  it('keeps assignee for the lead (NOT_LEAD otherwise) and names blocking dependencies', async () => {
    const { call } = await board();
    const dep = taskOf(await call(0, 'task_create', { title: 'First' }));
    await expect(call(1, 'task_create', { title: 'X', assignee: 'Bob' })).rejects.toMatchObject({
      code: ErrorCode.NOT_LEAD,
    });
    const later = taskOf(await call(1, 'task_create', { title: 'Later', depends_on: [dep.id] }));
    await expect(call(2, 'task_claim', { task_id: later.id, expected_revision: 1 })).rejects.toMatchObject({
      code: ErrorCode.TASK_BLOCKED,
      details: { blockedBy: dep.id },
    });
    const assigned = taskOf(await call(0, 'task_create', { title: 'Y', assignee: 'Bob' }));
    expect(assigned).toMatchObject({ status: 'claimed', owner: 'Bob' });
    await expect(call(1, 'task_release', { task_id: assigned.id, expected_revision: 1 })).rejects.toMatchObject({
      code: ErrorCode.FORBIDDEN,
    });
    expect(taskOf(await call(0, 'task_release', { task_id: assigned.id, expected_revision: 1 }))).toMatchObject({
      status: 'open',
      owner: null,
    });
  });

  it('lists by status and owner with cursors bound to the filters', async () => {
    const { call } = await board();
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) ids.push(taskOf(await call(1, 'task_create', { title: `T${i}` })).id);
    await call(2, 'task_claim', { task_id: ids[3], expected_revision: 1 });
    const page = await call(1, 'task_list', { status: 'open', limit: 2 });
    expect((page.tasks as TaskOut[]).map((t) => t.id)).toEqual([ids[0], ids[1]]);
    const next = await call(1, 'task_list', { status: 'open', limit: 2, cursor: page.next_cursor });
    expect((next.tasks as TaskOut[]).map((t) => t.id)).toEqual([ids[2], ids[4]]);
    expect(next.next_cursor).toBeNull();
    await expect(call(1, 'task_list', { status: 'claimed', cursor: page.next_cursor })).rejects.toMatchObject({
      code: ErrorCode.CURSOR_MISMATCH,
    });
    const bobs = await call(1, 'task_list', { owner: 'Bob' });
    expect((bobs.tasks as TaskOut[]).map((t) => t.id)).toEqual([ids[3]]);
    await expect(call(1, 'task_list', { status: 'later' })).rejects.toMatchObject({ code: ErrorCode.INVALID_INPUT });
  });

  it('answers task_list within the tool budget and walks every task once', async () => {
    const { call } = await board();
    const details = '"'.repeat(Limits.taskDetails.maxChars);
    const made: string[] = [];
    for (let i = 0; i < 12; i += 1) {
      made.push(taskOf(await call(1, 'task_create', { title: '😀'.repeat(200), details, write_scope: [`s${i}`] })).id);
    }
    const seen: string[] = [];
    let cursor: unknown = null;
    do {
      const page = await call(1, 'task_list', { limit: 20, ...(cursor === null ? {} : { cursor }) });
      expect(jsonBytes(page)).toBeLessThanOrEqual(Limits.toolResponseBytes);
      seen.push(...(page.tasks as TaskOut[]).map((t) => t.id));
      cursor = page.next_cursor;
    } while (cursor !== null);
    expect(seen).toEqual(made);
  });

  it('fits worst-case tasks (every field at its limit, heavy escaping) one or more per page, never none', async () => {
    const { call } = await board();
    const deps: string[] = [];
    for (let i = 0; i < Limits.dependenciesPerTask; i += 1)
      deps.push(taskOf(await call(0, 'task_create', { title: `d${i}` })).id);
    const heavy: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const scopes = Array.from({ length: Limits.writeScopesPerTask }, (_, j) => `${i}${j}${'"'.repeat(196)}`);
      const args = { title: '\\'.repeat(100), details: '"'.repeat(4_000), depends_on: deps, write_scope: scopes };
      const { id } = taskOf(await call(0, 'task_create', args));
      await call(0, 'task_claim', { task_id: id, expected_revision: 1 }).catch(() => undefined);
      heavy.push(id);
    }
    const seen: string[] = [];
    let cursor: unknown = null;
    do {
      const page = await call(1, 'task_list', { limit: 20, ...(cursor === null ? {} : { cursor }) });
      expect(jsonBytes(page)).toBeLessThanOrEqual(Limits.toolResponseBytes);
      expect((page.tasks as TaskOut[]).length).toBeGreaterThan(0);
      seen.push(...(page.tasks as TaskOut[]).map((t) => t.id));
      cursor = page.next_cursor;
    } while (cursor !== null);
    expect(seen).toEqual([...deps, ...heavy]);
  });

  it('refuses unknown arguments and a bad expected_revision', async () => {
    const { call } = await board();
    await expect(call(1, 'task_create', { title: 'A', owner: 'me' })).rejects.toMatchObject({
      code: ErrorCode.INVALID_INPUT,
      details: { field: 'owner' },
    });
    const { id } = taskOf(await call(1, 'task_create', { title: 'A' }));
    await expect(call(1, 'task_claim', { task_id: id, expected_revision: '1' })).rejects.toMatchObject({
      code: ErrorCode.INVALID_INPUT,
      details: { field: 'expected_revision' },
    });
  });
});
