import { trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';

/** Started tracing: flushes and stops on shutdown. */
export interface Tracing {
  shutdown(): Promise<void>;
}

/**
 * Sends the server's spans (`invoke_agent`, `execute_tool`, `chat`; OpenTelemetry GenAI
 * conventions) to an OTLP/HTTP collector at `endpoint`, in batches.
 *
 * @remarks Loaded only when an endpoint is configured (`main.ts` imports this module then), so a
 * server without tracing neither loads the SDK nor pays for spans: the API's tracer is a no-op.
 */
export function startTracing(endpoint: string, version: string): Tracing {
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'agent-teams', 'service.version': version }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: endpoint }))],
  });
  trace.setGlobalTracerProvider(provider);
  return {
    async shutdown() {
      // Spans that cannot be delivered (the collector is gone) must not fail the server's stop.
      await provider.shutdown().catch(() => undefined);
      trace.disable();
    },
  };
}
