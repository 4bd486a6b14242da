import { ErrorCode } from '../errors/codes.js';
import { DomainError } from '../errors/domain-error.js';

// Web-platform globals present in Node ≥16 and browsers; the core's ES-only lib does not declare them.
declare function btoa(data: string): string;
declare function atob(data: string): string;

/** The argument of a page cursor: `after` for connections, `cursor` for history/result pages. */
export type CursorField = 'after' | 'cursor';

/** What a cursor carries: the list it belongs to, the seq anchor and, optionally, the filter hash. */
export interface CursorPosition {
  readonly kind: string;
  readonly seq: number;
  /** {@link hashFilter} of the list's filter; a cursor is only valid with the same filter. */
  readonly filter?: string;
}

/** Cursors longer than this are garbage by construction (ours are well under 200 characters). */
const MAX_CURSOR_LENGTH = 512;

/** JSON with every non-ASCII character escaped, so `btoa` (Latin-1 only) can take it. */
const asciiJson = (value: unknown): string =>
  JSON.stringify(value).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/**
 * An opaque cursor: base64url of the small versioned JSON `{"v":1,"k":kind,"s":seq,"f":hash}`.
 * Versioned so its shape can change while old cursors still decode or fail cleanly.
 */
export function encodeCursor(position: CursorPosition): string {
  const body = {
    v: 1,
    k: position.kind,
    s: position.seq,
    ...(position.filter === undefined ? {} : { f: position.filter }),
  };
  return btoa(asciiJson(body)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function parse(cursor: string): unknown {
  if (cursor.length === 0 || cursor.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(cursor)) return null;
  try {
    const base64 = cursor.replace(/-/g, '+').replace(/_/g, '/');
    return JSON.parse(atob(base64.padEnd(Math.ceil(base64.length / 4) * 4, '=')));
  } catch {
    return null;
  }
}

/**
 * The seq anchor of a cursor minted by {@link encodeCursor} for the same `kind` and `filter`.
 * @throws DomainError INVALID_INPUT `{ field }` for garbage or a cursor of another list;
 * CURSOR_MISMATCH `{ field }` when it was minted for another filter.
 */
export function decodeCursor(cursor: string, kind: string, filter?: string, field: CursorField = 'after'): number {
  const body = parse(cursor) as { v?: unknown; k?: unknown; s?: unknown; f?: unknown } | null;
  const valid =
    typeof body === 'object' &&
    body !== null &&
    body.v === 1 &&
    body.k === kind &&
    Number.isSafeInteger(body.s) &&
    (body.f === undefined || typeof body.f === 'string');
  if (!valid) throw new DomainError(ErrorCode.INVALID_INPUT, `${field} is not a cursor of this list.`, { field });
  if (body.f !== filter) {
    throw new DomainError(ErrorCode.CURSOR_MISMATCH, `${field} was made for other filters; start again.`, { field });
  }
  return body.s as number;
}

/** Canonical JSON: object keys sorted at every depth, so equal filters hash equally. */
function canonicalJson(value: unknown): string {
  return (
    JSON.stringify(value, (_key, v: unknown) => {
      if (typeof v !== 'object' || v === null || Array.isArray(v)) return v;
      const entries = Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      return Object.fromEntries(entries);
    }) ?? 'undefined'
  );
}

const FNV_OFFSET = 0xcbf29ce484222325n;
const FNV_PRIME = 0x100000001b3n;
const MASK_64 = 0xffffffffffffffffn;

/**
 * A stable 64-bit FNV-1a hash (16 hex digits) of the canonical JSON of `value`, over its UTF-8
 * bytes. Arrays keep their order: callers sort set-like filters (e.g. statuses) first.
 */
export function hashFilter(value: unknown): string {
  // Percent-encoding is UTF-8 byte by byte; lone surrogates are already escaped by JSON.stringify.
  const utf8 = encodeURIComponent(canonicalJson(value));
  let hash = FNV_OFFSET;
  for (let i = 0; i < utf8.length; ) {
    const isEscape = utf8[i] === '%';
    const byte = isEscape ? Number.parseInt(utf8.slice(i + 1, i + 3), 16) : utf8.charCodeAt(i);
    hash = ((hash ^ BigInt(byte)) * FNV_PRIME) & MASK_64;
    i += isEscape ? 3 : 1;
  }
  return hash.toString(16).padStart(16, '0');
}

/**
 * A validated page size: `def` when absent, else an integer in 1..`max`.
 * @throws DomainError INVALID_INPUT `{ field, min, max }`.
 */
export function pageSize(first: number | null | undefined, def: number, max: number, field = 'first'): number {
  if (first === null || first === undefined) return def;
  if (!Number.isInteger(first) || first < 1 || first > max) {
    throw new DomainError(ErrorCode.INVALID_INPUT, `${field} must be between 1 and ${max}.`, { field, min: 1, max });
  }
  return first;
}
