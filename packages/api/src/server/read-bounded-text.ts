/**
 * The bytes of a Fetch request's or response's body, or null as soon as it grows past `maxBytes`
 * (a declared `content-length` above it is refused before reading; reading stops at the first
 * byte past the limit and the stream is cancelled). No body reads as no bytes.
 */
export async function readBoundedBytes(
  message: Pick<Request, 'headers' | 'body'>,
  maxBytes: number,
): Promise<Buffer | null> {
  if (Number(message.headers.get('content-length') ?? '0') > maxBytes) {
    await message.body?.cancel();
    return null;
  }
  if (message.body === null) return Buffer.alloc(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = message.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, size);
}

/** {@link readBoundedBytes} as UTF-8 text (no body reads as `''`). */
export async function readBoundedText(
  message: Pick<Request, 'headers' | 'body'>,
  maxBytes: number,
): Promise<string | null> {
  return (await readBoundedBytes(message, maxBytes))?.toString('utf8') ?? null;
}
