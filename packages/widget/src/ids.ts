/**
 * A random idempotency key that works on plain-HTTP pages.
 *
 * @remarks `crypto.randomUUID` exists only in secure contexts; `crypto.getRandomValues` works in
 * every context, and a Math.random fallback covers very old engines.
 */
export function randomKey(): string {
  const bytes = new Uint8Array(16);
  const c = (globalThis as { crypto?: Crypto }).crypto;
  if (c?.getRandomValues) c.getRandomValues(bytes);
  else for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(Math.random() * 256);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * Keeps one idempotency key while the payload's fingerprint is unchanged, so a retry after a
 * flaky network reuses it, and mints a new one when the payload changes.
 */
export function createRetryKey(): { keyFor(fingerprint: string): string; rotate(): void } {
  let last: { fingerprint: string; key: string } | null = null;
  return {
    keyFor(fingerprint) {
      if (last?.fingerprint !== fingerprint) last = { fingerprint, key: randomKey() };
      return last.key;
    },
    rotate() {
      last = null;
    },
  };
}
