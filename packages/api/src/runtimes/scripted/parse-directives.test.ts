import { describe, expect, it } from 'vitest';
import { type Directive, needsBackground, parseDirectiveLine, parseDirectives } from './parse-directives.js';

describe('parseDirectiveLine', () => {
  const cases: [string, Directive][] = [
    ['!reply hello world', { kind: 'reply', text: 'hello world' }],
    ['!reply', { kind: 'reply', text: '' }],
    ['!reply !ask nested', { kind: 'reply', text: '!ask nested' }],
    ['!ask Which region?', { kind: 'ask', question: 'Which region?' }],
    ['!interrupt {"approve":true}', { kind: 'interrupt', payload: { approve: true } }],
    ['!interrupt [1, 2]', { kind: 'interrupt', payload: [1, 2] }],
    ['!handoff reviewer check the draft', { kind: 'handoff', member: 'reviewer', text: 'check the draft' }],
    [
      '!handoff reviewer !ask Which environment?',
      { kind: 'handoff', member: 'reviewer', text: '!ask Which environment?' },
    ],
    ['!handoff "Senior Reviewer" look again', { kind: 'handoff', member: 'Senior Reviewer', text: 'look again' }],
    ['!tool read_team_context', { kind: 'tool', name: 'read_team_context', args: {} }],
    [
      '!tool read_team_result {"job_id":"job_1"}',
      { kind: 'tool', name: 'read_team_result', args: { job_id: 'job_1' } },
    ],
    ['!fail disk on fire', { kind: 'fail', message: 'disk on fire' }],
    ['!fail', { kind: 'fail', message: 'scripted failure' }],
    ['!sleep 0', { kind: 'sleep', ms: 0 }],
    ['!sleep 599999', { kind: 'sleep', ms: 599_999 }],
    ['!sleep 600000', { kind: 'sleep', ms: 600_000 }],
    ['!stream 1000', { kind: 'stream', count: 1000 }],
    ['!bytes 1000000', { kind: 'bytes', count: 1_000_000 }],
    ['!stream 3', { kind: 'stream', count: 3 }],
    ['!bytes 7000', { kind: 'bytes', count: 7000 }],
    ['!reply 研究 🚀', { kind: 'reply', text: '研究 🚀' }],
  ];
  it.each(cases)('parses %s', (line, expected) => {
    expect(parseDirectiveLine(line)).toEqual(expected);
  });

  const invalid = [
    '!ask',
    '!interrupt',
    '!interrupt {not json',
    '!handoff',
    '!handoff reviewer',
    '!handoff "Senior Reviewer',
    '!tool',
    '!tool x {bad',
    '!sleep',
    '!sleep 600001',
    '!sleep -5',
    '!sleep 1.5',
    '!stream many',
    '!stream 1001',
    '!bytes 1000001',
    '!unknown thing',
    '!',
  ];
  it.each(invalid)('reports %s as invalid, keeping the line', (line) => {
    const directive = parseDirectiveLine(line);
    expect(directive.kind).toBe('invalid');
    expect(directive).toMatchObject({ line });
  });
});

describe('parseDirectives', () => {
  it('keeps directive lines in order and ignores the other lines', () => {
    const parsed = parseDirectives('Please do this\n!reply one\r\nplain text\n  !reply indented is text\n!bytes 2');
    expect(parsed).toEqual([
      { kind: 'reply', text: 'one' },
      { kind: 'bytes', count: 2 },
    ]);
  });

  it('answers no directive for plain text', () => {
    expect(parseDirectives('Summarise the report\nsecond line')).toEqual([]);
  });

  it('marks turns with sleep or stream as needing background time', () => {
    expect(needsBackground(parseDirectives('!reply a\n!sleep 5'))).toBe(true);
    expect(needsBackground(parseDirectives('!stream 2'))).toBe(true);
    expect(needsBackground(parseDirectives('!reply a\n!bytes 3\n!ask q'))).toBe(false);
  });
});
