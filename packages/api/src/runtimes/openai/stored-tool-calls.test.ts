import { JobErrorCode } from '@agent-teams/core';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { UNREADABLE_WARNING } from '../../storage/stored-json.js';
import { toPersisted } from './openai-messages.js';
import type { PersistedMessage } from './openai-run-store.js';
import { lostToolCalls, readStoredToolCalls, TOOL_CALLS_LOST } from './stored-tool-calls.js';

/** The reports this test gave (each given at once: `process.on('warning')` would have them a tick later). */
let warned: string[] = [];
beforeEach(() => {
  warned = [];
  // Other warnings are dropped: this file reads only stored values.
  vi.spyOn(process, 'emitWarning').mockImplementation(((message: string, options?: { type?: string }) => {
    if (options?.type === UNREADABLE_WARNING) warned.push(message);
  }) as never);
});
afterEach(() => {
  vi.restoreAllMocks();
});

let ids = 0;
const rowId = () => `omsg_${++ids}`;

describe('stored tool calls', () => {
  it('reads valid calls as stored, in any text, reporting nothing', () => {
    const calls = [
      { id: 'call_1', name: 'read_team_context', arguments: '{}' },
      { id: 'call_数据', name: 'send_member', arguments: '{"text":"数据 😀"}' },
      { id: 'call_3', name: 'ask_clarification', arguments: '\ud800' },
    ];
    expect(readStoredToolCalls(rowId(), JSON.stringify(calls))).toEqual(calls);
    // Written as the model made them: a lone surrogate stays, an extra field is kept.
    expect(readStoredToolCalls(rowId(), '[{"id":"c","name":"n","arguments":"\\ud800","type":"function"}]')).toEqual([
      { id: 'c', name: 'n', arguments: '\ud800', type: 'function' },
    ]);
    expect(readStoredToolCalls(rowId(), '[]')).toEqual([]);
    expect(warned).toEqual([]);
  });

  it('reads text that does not parse as lost, reported once, naming the row and never the text', () => {
    for (const text of ['{"broken": "数据 😀', '[{"id":"call_1"', '\ud800', '数据', '😀', '']) {
      const id = rowId();
      expect(readStoredToolCalls(id, text)).toBeNull();
      expect(readStoredToolCalls(id, text)).toBeNull();
      expect(warned.at(-1)).toBe(
        `openai_messages.tool_calls_json of ${id} does not read as JSON (${text.length} characters); read as no calls`,
      );
    }
    expect(warned).toHaveLength(6);
    expect(warned.join(' ')).not.toMatch(/broken|数据|😀|call_1|\ud800/);
  });

  it('reads JSON of another shape as lost, reported once as not a list of tool calls', () => {
    const shapes = [
      'null',
      '42',
      '"call_1"',
      '{"id":"call_1","name":"n","arguments":"{}"}',
      '[1]',
      '["call_1"]',
      '[null]',
      '[[]]',
      '[{"id":1}]',
      '[{"id":"call_1","name":"n"}]',
      '[{"name":"n","arguments":"{}"}]',
      '[{"id":"call_1","name":7,"arguments":"{}"}]',
      '[{"id":"call_1","name":"n","arguments":{}}]',
      '[{"id":"c","name":"n","arguments":"{}"},{"id":null,"name":"n","arguments":"{}"}]',
    ];
    for (const text of shapes) {
      const id = rowId();
      expect(readStoredToolCalls(id, text)).toBeNull();
      expect(readStoredToolCalls(id, text)).toBeNull();
      expect(warned.at(-1)).toBe(
        `openai_messages.tool_calls_json of ${id} is not a list of tool calls (${text.length} characters); read as no calls`,
      );
    }
    expect(warned).toHaveLength(shapes.length);
  });

  it('reads a row whose calls are lost as a message without calls, marked lost', () => {
    const row = {
      id: rowId(),
      seq: 1,
      conversation_id: 'conversation_1',
      run_id: 'orun_job_1',
      step: 1,
      job_id: 'job_1',
      role: 'assistant',
      content: '',
      tool_calls_json: '[{"id":1}]',
      tool_call_id: null,
      tool_name: null,
      created_at: '2026-12-06T00:00:00.000Z',
    };
    expect(toPersisted(row)).toMatchObject({ role: 'assistant', toolCalls: null, toolCallsLost: true, step: 1 });
    const intact = toPersisted({ ...row, id: rowId(), tool_calls_json: '[{"id":"c","name":"n","arguments":"{}"}]' });
    expect(intact).not.toHaveProperty('toolCallsLost');
    expect(toPersisted({ ...row, id: rowId(), tool_calls_json: null })).not.toHaveProperty('toolCallsLost');
    expect(warned).toHaveLength(1);
  });

  // Thousands of values: after the tests that count reports (a process reports 256, then stops).
  it('reads any list of calls as written, and never throws on any stored text', () => {
    const call = fc.record({ id: fc.string(), name: fc.string(), arguments: fc.string({ unit: 'binary' }) });
    fc.assert(
      fc.property(fc.array(call), (calls) => {
        expect(readStoredToolCalls(rowId(), JSON.stringify(calls))).toEqual(calls);
      }),
    );
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary' }), fc.json()), (text) => {
        const read = readStoredToolCalls(rowId(), text);
        if (read !== null) expect(read).toEqual(JSON.parse(text));
      }),
    );
  });

  it('finds lost calls in the current turn only, and fails such a run with STATE_LOST', () => {
    const message = (role: PersistedMessage['role'], lost = false): PersistedMessage => ({
      role,
      content: '',
      toolCalls: null,
      toolCallId: null,
      toolName: null,
      step: 0,
      runId: 'orun_job_1',
      ...(lost ? { toolCallsLost: true as const } : {}),
    });
    const earlier = [message('user'), message('assistant', true), message('tool'), message('assistant')];
    expect(lostToolCalls(earlier)).toBe(true);
    expect(lostToolCalls([...earlier, message('user')])).toBe(false);
    expect(lostToolCalls([...earlier, message('user'), message('assistant')])).toBe(false);
    // A resumed run's history: the lost answer before the person's answer, still this turn.
    expect(lostToolCalls([message('user'), message('assistant', true), message('tool')])).toBe(true);
    expect(lostToolCalls([message('assistant', true)])).toBe(true);
    expect(lostToolCalls([])).toBe(false);
    expect(TOOL_CALLS_LOST).toEqual({
      state: 'failed',
      error: 'The run lost its tool calls (a stored value no longer reads); it cannot continue.',
      code: JobErrorCode.STATE_LOST,
    });
  });
});
