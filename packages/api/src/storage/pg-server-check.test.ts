import { describe, expect, it } from 'vitest';
import { ServerRefusedError, serverCheckError, theRowsOf } from './pg-server-check.js';

describe('serverCheckError', () => {
  it("turns a refused check into the store's own error, the driver's as its cause", () => {
    const driver = Object.assign(
      new Error('invalid input syntax for type integer: "agent-teams check failed: the probe, rows: 0"'),
      { code: '22P02' },
    );
    const mapped = serverCheckError(driver) as Error;
    expect(mapped.message).toBe('[agent-teams/api] the server refused a write: the probe, rows: 0');
    expect(mapped.cause).toBe(driver);
  });

  it.each([
    ['»agent-teams check failed: the probe, rows: 2«', 'German quotes'],
    ['« agent-teams check failed: the probe, rows: 2 »', 'French quotes'],
  ])('reads a refusal from a translated message (%s, %s)', (value) => {
    const driver = Object.assign(new Error(`ungültige Eingabesyntax für Typ integer: ${value}`), { code: '22P02' });
    const mapped = serverCheckError(driver) as ServerRefusedError;
    expect(mapped).toBeInstanceOf(ServerRefusedError);
    expect([mapped.check, mapped.rows]).toEqual(['the probe', 2]);
  });

  it.each([
    ['another text that is not a number', { code: '22P02', message: 'invalid input syntax for type integer: "abc"' }],
    ['another code', { code: '23505', message: 'agent-teams check failed: x' }],
    ['no code', new Error('agent-teams check failed: x')],
    ['not an object', 'agent-teams check failed: x'],
    ['null', null],
  ])('passes %s through as it is', (_, error) => {
    expect(serverCheckError(error)).toBe(error);
  });
});

describe('theRowsOf', () => {
  it.each([
    ['a name that is not plain', 'Written', 'the probe'],
    ['a quote in the check', 'written', "the probe's row"],
    ['a backslash in the check', 'written', 'the probe\\'],
  ])('refuses %s', (_, cte, what) => {
    expect(() => theRowsOf(cte, what)).toThrow("a server check's names must be plain text");
  });
});
