/**
 * Where a non-streamed answer carries what a stream counts as its output: the first choice's text
 * and each tool call's arguments (`ChunkAccumulator.soFar`), as paths of object keys, `[]` for
 * the items of a list.
 */
const ANSWER_TEXT_PATHS: ReadonlySet<string> = new Set([
  'choices[].message.content',
  'choices[].message.tool_calls[].function.arguments',
]);

/**
 * The paths of the objects and lists that hold {@link ANSWER_TEXT_PATHS}: what comes before each
 * step of them (`''`: the body's own value, `choices`: the list, `choices[]`: its items, ...).
 */
const ON_THE_WAY: ReadonlySet<string> = new Set(
  [...ANSWER_TEXT_PATHS].flatMap((path) => [
    '',
    ...[...path.matchAll(/\.|\[\]/g)].map((step) => path.slice(0, step.index)),
  ]),
);

/** What escapes other than `\u` stand for (one that is not JSON's stands for its own character). */
const ESCAPES: Readonly<Record<string, string>> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

/** An object or list on the way to answer text, with the path of its values. */
interface Open {
  readonly list: boolean;
  readonly path: string;
  /** An object's key of the value being read; null while a key is awaited. */
  key: string | null;
}

/**
 * The UTF-8 bytes of answer text and tool-call arguments in a non-streamed answer's body that
 * broke off or is not JSON, as far as they came: what a stream that failed at the same point
 * counts as its output (its usage is then estimated at these bytes / 4, as a cut stream's is).
 *
 * @remarks A tolerant read of JSON's tokens (never a throw): strings at the paths of
 * {@link ANSWER_TEXT_PATHS} are decoded, one cut inside counting what came of it (an escape cut
 * inside counts nothing), and whatever is not JSON is skipped a character at a time, so a body
 * that is no answer at all (a proxy's HTML page) counts nothing. Several choices are all counted
 * (the call asks for one), arguments sent as an object rather than a string are not (a stream's
 * would be counted as their JSON), and neither are a provider's other fields (`reasoning_content`),
 * as a stream's are not. Linear in the body's length, whatever its nesting: only the few objects
 * on the way to answer text are kept, the others only counted.
 */
export function receivedAnswerBytes(body: string): number {
  const open: Open[] = [];
  // Objects and lists open inside one that holds no answer text: read past, never kept.
  let elsewhere = 0;
  let bytes = 0;
  let at = 0;
  while (at < body.length) {
    const char = body[at];
    const top = open.at(-1);
    if (char === '"') {
      const awaitsKey = elsewhere === 0 && top !== undefined && !top.list && top.key === null;
      const counted = elsewhere === 0 && !awaitsKey && ANSWER_TEXT_PATHS.has(valuePath(top));
      const read = readString(body, at + 1, awaitsKey);
      at = read.end;
      if (awaitsKey && top !== undefined) top.key = read.text;
      else if (counted) bytes += read.bytes;
      continue;
    }
    if (char === '{' || char === '[') {
      const path = elsewhere === 0 ? valuePath(top) : null;
      if (path !== null && ON_THE_WAY.has(path)) open.push({ list: char === '[', path, key: null });
      else elsewhere += 1;
    } else if (char === '}' || char === ']') {
      if (elsewhere > 0) elsewhere -= 1;
      else open.pop();
    } else if (char === ',' && elsewhere === 0 && top !== undefined && !top.list) {
      top.key = null;
    }
    at += 1;
  }
  return bytes;
}

/** The path of the value read next inside `top` (the body's own value: `''`). */
function valuePath(top: Open | undefined): string {
  if (top === undefined) return '';
  if (top.list) return `${top.path}[]`;
  return top.path === '' ? (top.key ?? '') : `${top.path}.${top.key ?? ''}`;
}

/** The longest key decoded: longer ones are on no path to answer text, so they are only counted. */
const KEY_CHARS = 64;

/**
 * The JSON string whose text starts at `start` (just after its opening quote): where reading goes
 * on (after its closing quote, or the body's end), the UTF-8 bytes of its text as far as it went,
 * and, for a key, its first {@link KEY_CHARS} characters.
 *
 * @remarks The bytes are added up a UTF-16 code unit at a time, never by building the text: a
 * text built a character at a time is a chain of one fragment per character in V8 (about 32 bytes
 * each), and a broken answer of 1 MiB held the event loop 155 ms and 32 MiB of heap. They are
 * what `Buffer.byteLength` gives for the decoded text: a surrogate pair (raw or escaped, or one
 * of each) is 4 bytes, a lone surrogate 3 (it is encoded as U+FFFD).
 */
function readString(body: string, start: number, key: boolean): { text: string; bytes: number; end: number } {
  let text = '';
  let bytes = 0;
  // A high surrogate waiting for its low half: 4 bytes with it, 3 alone.
  let high = false;
  const unit = (code: number): void => {
    if (key && text.length < KEY_CHARS) text += String.fromCharCode(code);
    if (high && code >= 0xdc00 && code <= 0xdfff) {
      high = false;
      bytes += 4;
      return;
    }
    if (high) bytes += 3;
    high = code >= 0xd800 && code <= 0xdbff;
    if (!high) bytes += code < 0x80 ? 1 : code < 0x800 ? 2 : 3;
  };
  let at = start;
  let end = body.length;
  while (at < body.length) {
    const code = body.charCodeAt(at);
    if (code === 0x22) {
      end = at + 1;
      break;
    }
    if (code !== 0x5c) {
      unit(code);
      at += 1;
      continue;
    }
    const escaped = body[at + 1];
    // Cut inside an escape: what it stood for never came.
    if (escaped === undefined) break;
    if (escaped !== 'u') {
      unit((ESCAPES[escaped] ?? escaped).charCodeAt(0));
      at += 2;
      continue;
    }
    const hex = body.slice(at + 2, at + 6);
    if (!/^[0-9a-fA-F]{4}$/.test(hex)) {
      // Cut inside its four digits: what it stood for never came.
      if (at + 6 > body.length) break;
      // Not JSON: the escape is dropped, and the string read on.
      at += 2;
      continue;
    }
    unit(Number.parseInt(hex, 16));
    at += 6;
  }
  if (high) bytes += 3;
  return { text, bytes, end };
}
