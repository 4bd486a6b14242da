/** What replaces a password or another secret in a printed URL. */
export const HIDDEN_PASSWORD = '***';

/** Query parameters that carry a secret (libpq's `password`/`sslpassword`, a collector's `api_key`, ...). */
const SECRET_PARAMETER = /pass|secret|token|key|auth|signature/i;

/**
 * A URL as the server prints or logs it: its password, and the value of any query parameter named
 * like a secret, replaced by {@link HIDDEN_PASSWORD}; the URL as given when it holds none.
 *
 * @remarks stdout and stderr are collected by supervisors and log shippers, so a password printed
 * there is a password in the logs. A URL that does not parse is cut at its credentials by pattern.
 */
export function urlForDisplay(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return text.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:@/]*):[^/]*@/i, `$1:${HIDDEN_PASSWORD}@`).replace(/\?.*$/, '');
  }
  let changed = false;
  if (url.password !== '') {
    url.password = HIDDEN_PASSWORD;
    changed = true;
  }
  for (const key of [...url.searchParams.keys()]) {
    if (SECRET_PARAMETER.test(key)) {
      url.searchParams.set(key, HIDDEN_PASSWORD);
      changed = true;
    }
  }
  return changed ? url.toString() : text;
}

/**
 * The `--database` value as the start-up banner prints it: a `postgres://` URL through
 * {@link urlForDisplay}, a SQLite path (or `:memory:`) as given.
 */
export function databaseForDisplay(database: string): string {
  return /^postgres(ql)?:\/\//i.test(database) ? urlForDisplay(database) : database;
}
