import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { receivedAnswerBytes } from './received-answer.js';

/** A non-streamed answer's JSON with `content` and one tool call per item of `args`. */
function completion(content: string, args: readonly string[]): string {
  const toolCalls = args.map((text, index) => ({
    id: `call_${index}`,
    type: 'function',
    function: { name: 'read_team_history', arguments: text },
  }));
  return JSON.stringify({
    id: 'chatcmpl-1',
    object: 'chat.completion',
    model: 'm',
    choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content, tool_calls: toolCalls } }],
    usage: { prompt_tokens: 10, completion_tokens: 5 },
  });
}

const bytes = (text: string) => Buffer.byteLength(text, 'utf8');

describe('receivedAnswerBytes', () => {
  it("counts a whole answer's text and arguments as a stream's accumulator does, and nothing else", () => {
    const body = completion('Ship it — then "check"\n', ['{"query":"plan"}', '{}']);
    expect(receivedAnswerBytes(body)).toBe(bytes('Ship it — then "check"\n') + 16 + 2);
  });

  it('counts a string cut inside as far as it came', () => {
    const body = completion('Hello there', []);
    const at = body.indexOf('Hello there');
    expect(receivedAnswerBytes(body.slice(0, at))).toBe(0);
    expect(receivedAnswerBytes(body.slice(0, at + 5))).toBe(5);
  });

  it('counts an escape once all of it came: n − 1, n and n + 1 characters of \\u00e9', () => {
    const body = completion('é!', []).replace('é', '\\u00e9');
    const at = body.indexOf('\\u00e9');
    expect(receivedAnswerBytes(body.slice(0, at + 5))).toBe(0);
    expect(receivedAnswerBytes(body.slice(0, at + 6))).toBe(2);
    expect(receivedAnswerBytes(body.slice(0, at + 7))).toBe(3);
  });

  it('counts a surrogate pair sent as two escapes as its 4 bytes', () => {
    expect(receivedAnswerBytes(completion('😀', []).replace('😀', '\\ud83d\\ude00'))).toBe(4);
  });

  it('counts nothing of a body that is no answer, nor of text at other paths', () => {
    expect(receivedAnswerBytes('<html><body>"content": "Bad gateway"</body></html>')).toBe(0);
    expect(receivedAnswerBytes(JSON.stringify({ content: 'top level', message: { content: 'no choices' } }))).toBe(0);
    expect(receivedAnswerBytes(JSON.stringify({ choices: [{ delta: { content: 'a chunk' } }] }))).toBe(0);
    expect(receivedAnswerBytes('')).toBe(0);
  });

  it('counts the answer after fields it reads past, however they nest', () => {
    const body = completion('Hello', ['{}']).replace('{"id":', '{"meta":{"a":[1,{"b":"]}"},[[]]],"c":"}"},"id":');
    expect(receivedAnswerBytes(body)).toBe(5 + 2);
  });

  it('reads a body nested a million deep in one pass, keeping none of what holds no answer', () => {
    const started = performance.now();
    expect(receivedAnswerBytes(`{"choices":[{"message":${'['.repeat(1_000_000)}`)).toBe(0);
    expect(receivedAnswerBytes('{"a":'.repeat(200_000) + completion('Hello', []))).toBe(0);
    expect(receivedAnswerBytes(`[${'{"content":"x"},'.repeat(100_000)}]`)).toBe(0);
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it('never throws, and never counts more than the whole answer, on any cut of any answer', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary' }),
        fc.array(fc.string({ unit: 'binary' }), { maxLength: 3 }),
        fc.nat(),
        (content, args, cut) => {
          const body = completion(content, args);
          const whole = bytes(content) + args.reduce((sum, text) => sum + bytes(text), 0);
          expect(receivedAnswerBytes(body)).toBe(whole);
          const prefix = body.slice(0, cut % (body.length + 1));
          const counted = receivedAnswerBytes(prefix);
          expect(counted).toBeGreaterThanOrEqual(0);
          expect(counted).toBeLessThanOrEqual(whole);
          // What came later only adds.
          expect(receivedAnswerBytes(body.slice(0, prefix.length + 1))).toBeGreaterThanOrEqual(counted);
        },
      ),
    );
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        expect(receivedAnswerBytes(text)).toBeGreaterThanOrEqual(0);
      }),
    );
  });
});
