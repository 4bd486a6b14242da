/**
 * The UTF-8 JSON of message and tool objects already sent once, by identity: a member's history
 * goes out again with every model call, and only its newest messages are new.
 */
const KEPT = new WeakMap<object, Uint8Array>();

/** Top-level keys whose arrays hold such objects. */
const KEPT_ARRAYS: ReadonlySet<string> = new Set(['messages', 'tools']);

const COMMA = Buffer.from(',');
const OPEN_ARRAY = Buffer.from('[');
const CLOSE_ARRAY = Buffer.from(']');
const CLOSE_OBJECT = Buffer.from('}');
const EMPTY_OBJECT = Buffer.from('{}');

const ENCODER = new TextEncoder();

/**
 * The kept bytes of `value`, each in an `ArrayBuffer` of its own: `Buffer.from` would put a short
 * JSON in Node's shared 8 KiB pool, where one kept message holds the whole block alive (20,000 kept
 * messages with 5.2 MB of JSON held 29.8 MB of buffers; now 5.3 MB: docs/benchmarks.md).
 */
export function keptBytes(value: object): Uint8Array {
  let bytes = KEPT.get(value);
  if (bytes === undefined) {
    bytes = ENCODER.encode(JSON.stringify(value));
    KEPT.set(value, bytes);
  }
  return bytes;
}

/** One element of an array as `JSON.stringify` writes it inside the array. */
function elementBytes(element: unknown): Uint8Array {
  if (typeof element === 'object' && element !== null && !Array.isArray(element)) return keptBytes(element);
  // Inside an array, what JSON cannot hold becomes null.
  return Buffer.from(JSON.stringify(element) ?? 'null');
}

/**
 * `JSON.stringify(body)` of a chat completion request as UTF-8 bytes, byte for byte, with each
 * object of its `messages` and `tools` serialized and encoded once per process and reused.
 *
 * @remarks Why: every model call carries the member's whole context window, and the OpenAI SDK
 * (which sent the calls until the twentieth pass) serialized it to a string that fetch then
 * encoded, both anew each time. With 400 history
 * messages that cost 0.38–0.52 ms per call at 142 KiB and 2.1–2.9 ms at 806 KiB, against
 * 0.07–0.18 and 0.20–0.27 ms with the kept bytes (docs/benchmarks.md, thirteenth pass). `JSON.stringify` writes lone
 * surrogates as escapes, so the JSON is always well-formed UTF-16 and encodes without loss.
 * Objects are keyed by identity, so they must never change once sent: the request messages the
 * context window keeps per stored message (`context-window.ts`) and the tool definitions never
 * do. The kept bytes live as long as their objects (the history cache bounds those).
 *
 * @param keep the messages are the same objects from call to call (the SQLite history cache):
 * keep their bytes. Otherwise (PostgreSQL) each call serializes the body whole, as the SDK did.
 */
export function chatRequestBody(body: Readonly<Record<string, unknown>>, keep: boolean): Buffer {
  // Objects seen once are never found again: `JSON.stringify` of the whole body is cheaper then.
  if (!keep) return Buffer.from(JSON.stringify(body));
  const parts: Uint8Array[] = [];
  let length = 0;
  const push = (part: Uint8Array) => {
    parts.push(part);
    length += part.length;
  };
  for (const key of Object.keys(body)) {
    const value = body[key];
    const kept = KEPT_ARRAYS.has(key) && Array.isArray(value);
    const json = kept ? '' : (JSON.stringify(value) as string | undefined);
    // Omitted as `JSON.stringify` omits them: undefined, functions, symbols.
    if (json === undefined) continue;
    push(Buffer.from(`${parts.length === 0 ? '{' : ','}${JSON.stringify(key)}:${json}`));
    if (!kept) continue;
    const elements = value as readonly unknown[];
    push(OPEN_ARRAY);
    for (let index = 0; index < elements.length; index += 1) {
      if (index > 0) push(COMMA);
      push(elementBytes(elements[index]));
    }
    push(CLOSE_ARRAY);
  }
  push(parts.length === 0 ? EMPTY_OBJECT : CLOSE_OBJECT);
  return Buffer.concat(parts, length);
}
