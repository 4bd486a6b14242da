import { randomFillSync } from 'node:crypto';

/**
 * The body of every id the server mints (`adapters/random-ids.ts`) and of the message ids the
 * stores mint themselves: its time first, then its randomness (decision 0233). Here, in the
 * storage layer, because both the stores and the id adapter use it.
 */

/** The random bytes of one id: 96 bits, after its time (more than a UUIDv7's 74). */
export const ID_RANDOM_BYTES = 12;
/** The characters of an id's time: milliseconds since 1970 in base 32, enough until the year 37,000. */
export const ID_TIME_CHARS = 10;
/** 32 ** {@link ID_TIME_CHARS}: the milliseconds ten base-32 digits hold. */
const TIME_RANGE = 32 ** ID_TIME_CHARS;
/** Random bytes drawn at once for the next ids (256 ids' worth). */
const POOL_BYTES = ID_RANDOM_BYTES * 256;

let pool = Buffer.alloc(0);
let used = 0;
// The last instant's digits, kept: the ids of one request or one turn share a millisecond, and
// the compare costs less than `toString(32)` and `padStart`. NaN equals nothing, so the first
// call always computes (a kept -1 once answered '' for -1).
let lastMs = Number.NaN;
let lastTime = '';

/**
 * `ms` as {@link ID_TIME_CHARS} base-32 digits (`0-9a-v`, JavaScript's own radix 32), most
 * significant first, so text order is time order.
 *
 * @remarks Digits, then lowercase letters: ascending under every collation we meet (byte order,
 * glibc and ICU locales). Base64url's alphabet is not (`-`, `_` and case sort differently by
 * collation), which would scatter the ids a PostgreSQL index keeps in order.
 */
export function idTime(ms: number): string {
  if (ms === lastMs) return lastTime;
  // A clock before 1970 or not a number yields zeros: ids stay unique (their random part), only
  // out of order. Past the year 37,000 the time would take an eleventh digit; it keeps the low ten.
  const at = Number.isFinite(ms) ? Math.max(0, Math.floor(ms)) : 0;
  lastTime = (at % TIME_RANGE).toString(32).padStart(ID_TIME_CHARS, '0');
  lastMs = ms;
  return lastTime;
}

/**
 * An id's body: its time in {@link ID_TIME_CHARS} ordered base-32 digits, then
 * {@link ID_RANDOM_BYTES} random bytes as base64url (16 characters, 26 in all).
 *
 * @remarks Why the time first: every id is a key of a unique index (and a job's id is also its
 * root's key), and random keys land on a random leaf page of each index, so a transaction of eight
 * requests dirtied eight leaf pages per index, each written to the log and synced at its COMMIT.
 * Ids minted together now sort together and share the index's last page (the reason for UUIDv7
 * and ULID). The random part alone keeps ids unguessable and unique: 96 bits per millisecond.
 * The bytes come from a pool filled by one `randomFillSync` per 256 ids, as `randomUUID` does for
 * its own: a `randomBytes` per id cost 4.4 µs, the pooled slice 0.1 µs (measured here).
 */
export function orderedIdBody(nowMs: number = Date.now()): string {
  if (used + ID_RANDOM_BYTES > pool.length) {
    // A fresh buffer each time: never a byte handed out twice, even if a fill were to throw.
    pool = randomFillSync(Buffer.allocUnsafeSlow(POOL_BYTES));
    used = 0;
  }
  const random = pool.toString('base64url', used, used + ID_RANDOM_BYTES);
  used += ID_RANDOM_BYTES;
  return idTime(nowMs) + random;
}
