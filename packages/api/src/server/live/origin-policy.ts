/** Hosts that name this machine: allowed as origins by default. */
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/**
 * Decides whether a WebSocket upgrade may proceed, from its `Origin` and `Host` headers.
 *
 * @remarks Browsers always send Origin on a WebSocket upgrade and never enforce CORS on it, so
 * this check is what stops another site's page from using a visitor's session (cross-site
 * WebSocket hijacking). No Origin means a non-browser client, which holds its own token.
 */
export function createOriginPolicy(
  allowed: readonly string[],
): (origin: string | undefined, host: string | undefined) => boolean {
  const any = allowed.includes('*');
  const exact = new Set(allowed.map((origin) => origin.trim().replace(/\/+$/, '').toLowerCase()));
  return (origin, host) => {
    if (origin === undefined || any) return true;
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      return false;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
    if (LOOPBACK_HOSTS.has(url.hostname.toLowerCase())) return true;
    if (host !== undefined && url.host.toLowerCase() === host.toLowerCase()) return true;
    return exact.has(url.origin.toLowerCase());
  };
}
