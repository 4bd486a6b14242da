import { asJobId, truncateUtf8 } from '@agent-teams/core';
import type { JobProgressNotice } from '../events/progress-hub.js';

/** The PostgreSQL channel servers send each other their runs' progress on. */
export const PROGRESS_CHANNEL = 'agent_teams_progress';

/**
 * Largest NOTIFY payload sent, in UTF-8 bytes of JSON. PostgreSQL refuses 8,000 bytes and more;
 * the margin covers the envelope.
 */
export const PROGRESS_PAYLOAD_BYTES = 7_000;

/** A tool name is cut to this many bytes on the wire (a model may invent a long one). */
export const TOOL_NAME_BYTES = 256;

/** One entry on the wire: job id, `t` (text delta) or `c` (tool call), and the text or name. */
type WireEntry = [string, 't' | 'c', string];

const bytesOf = (value: unknown): number => Buffer.byteLength(JSON.stringify(value), 'utf8');

/**
 * Packs progress notices into NOTIFY payloads of at most `maxBytes` each: consecutive text deltas
 * of one job are joined, and a delta too long for one payload is split at character boundaries
 * (a surrogate pair is never cut), so every payload fits and nothing is lost.
 */
export function encodeProgress(
  serverId: string,
  notices: readonly JobProgressNotice[],
  maxBytes = PROGRESS_PAYLOAD_BYTES,
): string[] {
  const envelope = bytesOf({ s: serverId, p: [] });
  const entries: WireEntry[] = [];
  for (const notice of notices) {
    if (typeof notice.toolCall === 'string') {
      entries.push([notice.jobId, 'c', truncateUtf8(notice.toolCall, TOOL_NAME_BYTES).text]);
    }
    if (typeof notice.textDelta !== 'string' || notice.textDelta === '') continue;
    const last = entries.at(-1);
    if (last?.[0] === notice.jobId && last[1] === 't') last[2] += notice.textDelta;
    else entries.push([notice.jobId, 't', notice.textDelta]);
  }
  const payloads: string[] = [];
  let batch: WireEntry[] = [];
  let used = envelope;
  for (const entry of entries.flatMap((e) => splitEntry(e, maxBytes - envelope))) {
    // Entries after the first are preceded by a comma.
    if (batch.length > 0 && used + 1 + bytesOf(entry) > maxBytes) {
      payloads.push(JSON.stringify({ s: serverId, p: batch }));
      batch = [];
      used = envelope;
    }
    used += (batch.length > 0 ? 1 : 0) + bytesOf(entry);
    batch.push(entry);
  }
  if (batch.length > 0) payloads.push(JSON.stringify({ s: serverId, p: batch }));
  return payloads;
}

/** Splits an entry whose JSON exceeds `room` bytes into pieces whose JSON fits in it. */
function splitEntry(entry: WireEntry, room: number): WireEntry[] {
  if (bytesOf(entry) <= room) return [entry];
  const [jobId, kind, text] = entry;
  const budget = room - bytesOf([jobId, kind, '']);
  const pieces: WireEntry[] = [];
  let piece = '';
  let size = 0;
  // By code point: a surrogate pair is never cut; a lone surrogate is one (escaped) character.
  for (const char of text) {
    const charBytes = bytesOf(char) - 2;
    if (size + charBytes > budget && piece !== '') {
      pieces.push([jobId, kind, piece]);
      piece = '';
      size = 0;
    }
    piece += char;
    size += charBytes;
  }
  if (piece !== '') pieces.push([jobId, kind, piece]);
  return pieces;
}

/**
 * Reads a progress payload another server sent; anything malformed is dropped, entry by entry,
 * and a payload this server sent itself answers nothing.
 */
export function decodeProgress(payload: string, ownServerId: string): JobProgressNotice[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(payload);
  } catch {
    return [];
  }
  if (typeof parsed !== 'object' || parsed === null) return [];
  const { s, p } = parsed as { s?: unknown; p?: unknown };
  if (typeof s !== 'string' || s === ownServerId || !Array.isArray(p)) return [];
  const notices: JobProgressNotice[] = [];
  for (const entry of p as unknown[]) {
    if (!Array.isArray(entry) || entry.length !== 3) continue;
    const [jobId, kind, text] = entry as unknown[];
    if (typeof jobId !== 'string' || typeof text !== 'string') continue;
    if (kind === 't') notices.push({ jobId: asJobId(jobId), textDelta: text });
    else if (kind === 'c') notices.push({ jobId: asJobId(jobId), toolCall: text });
  }
  return notices;
}
