import { describe, expect, it } from 'vitest';
import { parseServeOptions, UsageError } from './cli-options.js';

describe('the traces endpoint of serve', () => {
  it('is off unless an endpoint is configured', () => {
    expect(parseServeOptions([], {}).otlpEndpoint).toBeNull();
    expect(parseServeOptions([], { AGENT_TEAMS_OTLP_ENDPOINT: '  ' }).otlpEndpoint).toBeNull();
  });

  it('takes the flag over its twin, the twin over the standard variables', () => {
    const env = {
      AGENT_TEAMS_OTLP_ENDPOINT: 'http://twin:4318/v1/traces',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://traces:4318/v1/traces',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://base:4318',
    };
    expect(parseServeOptions(['--otlp-endpoint', 'http://flag:4318/v1/traces'], env).otlpEndpoint).toBe(
      'http://flag:4318/v1/traces',
    );
    expect(parseServeOptions([], env).otlpEndpoint).toBe('http://twin:4318/v1/traces');
    const { AGENT_TEAMS_OTLP_ENDPOINT: _twin, ...standard } = env;
    expect(parseServeOptions([], standard).otlpEndpoint).toBe('http://traces:4318/v1/traces');
  });

  it('appends /v1/traces to the standard base endpoint, as the OTLP exporter specification says', () => {
    expect(parseServeOptions([], { OTEL_EXPORTER_OTLP_ENDPOINT: 'https://collector.example/' }).otlpEndpoint).toBe(
      'https://collector.example/v1/traces',
    );
  });

  it('refuses what is not an http(s) URL, naming where it came from', () => {
    expect(() => parseServeOptions(['--otlp-endpoint', 'collector:4318'], {})).toThrow(UsageError);
    expect(() => parseServeOptions([], { AGENT_TEAMS_OTLP_ENDPOINT: 'grpc://x' })).toThrow(/AGENT_TEAMS_OTLP_ENDPOINT/);
  });
});
