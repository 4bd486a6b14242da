import type { Plugin } from 'graphql-yoga';
import type { ServerMetrics } from './metrics.js';
import type { Readiness } from './readiness.js';

/** What the operator endpoints answer from. */
export interface OpsEndpoints {
  readonly metrics: ServerMetrics;
  readonly readiness: () => Promise<Readiness>;
}

/**
 * A Yoga plugin answering `GET /metrics` (Prometheus text format) and `GET /ready` (200 when the
 * database is reachable, migrated and the scheduler runs, else 503; the body names each check).
 * `/health` (liveness) stays in `static-pages.ts`: it answers as long as the process serves HTTP.
 */
export function useOpsEndpoints(ops: OpsEndpoints): Plugin {
  return {
    onRequest({ request, url, endResponse, fetchAPI }) {
      if (request.method !== 'GET' && request.method !== 'HEAD') return;
      if (url.pathname === '/metrics') {
        return ops.metrics
          .render()
          .then(({ text, contentType }) =>
            endResponse(
              new fetchAPI.Response(text, { headers: { 'content-type': contentType, 'cache-control': 'no-store' } }),
            ),
          );
      }
      if (url.pathname === '/ready') {
        return ops.readiness().then((readiness) =>
          endResponse(
            new fetchAPI.Response(
              JSON.stringify({ status: readiness.ready ? 'ready' : 'unavailable', ...readiness.checks }),
              {
                status: readiness.ready ? 200 : 503,
                headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' },
              },
            ),
          ),
        );
      }
    },
  };
}
