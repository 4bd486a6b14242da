import { describe, expect, it } from 'vitest';
import { parseServeOptions, SERVE_DEFAULTS, UsageError, withoutLeadingSeparator } from './cli-options.js';

describe('parseServeOptions', () => {
  it('uses the contract defaults with no flags and no environment', () => {
    expect(parseServeOptions([], {})).toEqual({
      ...SERVE_DEFAULTS,
      config: null,
      allowedOrigins: [],
      publicUrl: null,
      otlpEndpoint: null,
      sqliteSynchronous: 'full',
      pgPreparedStatements: true,
      pgPipeline: true,
    });
  });

  it('reads every environment twin and lets flags win over them', () => {
    const env = {
      AGENT_TEAMS_PORT: '5000',
      AGENT_TEAMS_HOST: '0.0.0.0',
      AGENT_TEAMS_DATABASE: 'postgres://db/x',
      AGENT_TEAMS_CONFIG: 'env.json',
    };
    expect(parseServeOptions([], env)).toEqual({
      port: 5000,
      host: '0.0.0.0',
      database: 'postgres://db/x',
      config: 'env.json',
      allowedOrigins: [],
      eventPollMs: 250,
      leaseTtlMs: 15_000,
      heartbeatMs: 5_000,
      publicUrl: null,
      otlpEndpoint: null,
      sqliteSynchronous: 'full',
      pgPreparedStatements: true,
      pgPipeline: true,
    });
    expect(parseServeOptions(['--port', '0', '--database', ':memory:', '--config', 'flag.json'], env)).toEqual({
      port: 0,
      host: '0.0.0.0',
      database: ':memory:',
      config: 'flag.json',
      allowedOrigins: [],
      eventPollMs: 250,
      leaseTtlMs: 15_000,
      heartbeatMs: 5_000,
      publicUrl: null,
      otlpEndpoint: null,
      sqliteSynchronous: 'full',
      pgPreparedStatements: true,
      pgPipeline: true,
    });
  });

  it('reads the public URL from --public-url or AGENT_TEAMS_PUBLIC_URL and refuses one that is not http(s)', () => {
    expect(parseServeOptions([], { AGENT_TEAMS_PUBLIC_URL: 'https://teams.example/' }).publicUrl).toBe(
      'https://teams.example',
    );
    expect(
      parseServeOptions(['--public-url', 'https://b.example/base'], { AGENT_TEAMS_PUBLIC_URL: 'https://a.example' })
        .publicUrl,
    ).toBe('https://b.example/base');
    expect(() => parseServeOptions(['--public-url', 'teams.example'], {})).toThrow(/--public-url/);
    expect(() => parseServeOptions([], { AGENT_TEAMS_PUBLIC_URL: 'ftp://x' })).toThrow(/AGENT_TEAMS_PUBLIC_URL/);
  });

  it('reads the WebSocket origin allowlist from --allowed-origins or AGENT_TEAMS_ALLOWED_ORIGINS', () => {
    const env = { AGENT_TEAMS_ALLOWED_ORIGINS: 'https://a.example, https://b.example' };
    expect(parseServeOptions([], env).allowedOrigins).toEqual(['https://a.example', 'https://b.example']);
    expect(parseServeOptions(['--allowed-origins', '*'], env).allowedOrigins).toEqual(['*']);
  });

  it('refuses unknown flags and ports outside 0..65535', () => {
    expect(() => parseServeOptions(['--colour', 'red'], {})).toThrow(UsageError);
    expect(() => parseServeOptions(['--port', '65536'], {})).toThrow(UsageError);
    expect(() => parseServeOptions(['--port', '-1'], {})).toThrow(UsageError);
    expect(() => parseServeOptions([], { AGENT_TEAMS_PORT: 'eighty' })).toThrow(/AGENT_TEAMS_PORT/);
    expect(parseServeOptions(['--port', '65535'], {}).port).toBe(65535);
  });

  it('drops one leading "--" from a command line (pnpm agent-teams -- serve), and only one', () => {
    expect(withoutLeadingSeparator(['--', 'serve', '--port', '5000'])).toEqual(['serve', '--port', '5000']);
    expect(withoutLeadingSeparator(['--', '--', 'version'])).toEqual(['--', 'version']);
    expect(withoutLeadingSeparator(['serve', '--', 'x'])).toEqual(['serve', '--', 'x']);
    expect(withoutLeadingSeparator([])).toEqual([]);
  });

  it('skips one leading "--" (pnpm start -- --port 5000), and refuses what follows a second one', () => {
    expect(parseServeOptions(['--', '--port', '5000'], {}).port).toBe(5000);
    expect(parseServeOptions(['--'], {}).port).toBe(parseServeOptions([], {}).port);
    expect(() => parseServeOptions(['--', '--', '--port', '5000'], {})).toThrow(UsageError);
    expect(() => parseServeOptions(['--port', '5000', '--', 'extra'], {})).toThrow(UsageError);
  });

  it('reads the event poll, lease TTL and heartbeat from flags or their environment twins', () => {
    const env = {
      AGENT_TEAMS_EVENT_POLL_MS: '100',
      AGENT_TEAMS_LEASE_TTL_MS: '3000',
      AGENT_TEAMS_HEARTBEAT_MS: '1000',
    };
    expect(parseServeOptions([], env)).toMatchObject({ eventPollMs: 100, leaseTtlMs: 3_000, heartbeatMs: 1_000 });
    expect(parseServeOptions(['--event-poll', '10', '--lease-ttl', '600000', '--heartbeat', '250'], env)).toMatchObject(
      { eventPollMs: 10, leaseTtlMs: 600_000, heartbeatMs: 250 },
    );
  });

  it('refuses an event poll outside 10..250 ms and a lease TTL outside 1000..600000 ms, naming the source', () => {
    expect(() => parseServeOptions(['--event-poll', '9'], {})).toThrow(/--event-poll/);
    expect(() => parseServeOptions(['--event-poll', '251'], {})).toThrow(UsageError);
    expect(() => parseServeOptions([], { AGENT_TEAMS_EVENT_POLL_MS: '1.5' })).toThrow(/AGENT_TEAMS_EVENT_POLL_MS/);
    expect(() => parseServeOptions(['--lease-ttl', '999', '--heartbeat', '100'], {})).toThrow(/--lease-ttl/);
    expect(() => parseServeOptions(['--lease-ttl', '600001'], {})).toThrow(UsageError);
    expect(() => parseServeOptions([], { AGENT_TEAMS_HEARTBEAT_MS: 'soon' })).toThrow(/AGENT_TEAMS_HEARTBEAT_MS/);
  });

  it('refuses a heartbeat that is not below half the lease TTL', () => {
    expect(() => parseServeOptions(['--lease-ttl', '10000', '--heartbeat', '5000'], {})).toThrow(UsageError);
    expect(() => parseServeOptions([], { AGENT_TEAMS_LEASE_TTL_MS: '8000' })).toThrow(/half the lease TTL/);
    expect(parseServeOptions(['--lease-ttl', '10000', '--heartbeat', '4999'], {}).heartbeatMs).toBe(4_999);
  });

  it('reads the body limit from --max-body-bytes or AGENT_TEAMS_MAX_BODY_BYTES (1024..67108864), flag first', () => {
    expect(parseServeOptions([], {}).maxBodyBytes).toBeUndefined();
    expect(parseServeOptions([], { AGENT_TEAMS_MAX_BODY_BYTES: '2048' }).maxBodyBytes).toBe(2048);
    expect(parseServeOptions(['--max-body-bytes', '1024'], { AGENT_TEAMS_MAX_BODY_BYTES: '2048' }).maxBodyBytes).toBe(
      1024,
    );
    expect(parseServeOptions(['--max-body-bytes', '67108864'], {}).maxBodyBytes).toBe(67_108_864);
    expect(() => parseServeOptions(['--max-body-bytes', '1023'], {})).toThrow(/--max-body-bytes/);
    expect(() => parseServeOptions(['--max-body-bytes', '67108865'], {})).toThrow(UsageError);
    expect(() => parseServeOptions([], { AGENT_TEAMS_MAX_BODY_BYTES: '1MB' })).toThrow(/AGENT_TEAMS_MAX_BODY_BYTES/);
  });

  it('reads the rate limit from AGENT_TEAMS_RATE_LIMIT_PER_SECOND and AGENT_TEAMS_RATE_LIMIT_BURST', () => {
    const env = { AGENT_TEAMS_RATE_LIMIT_PER_SECOND: '0.5', AGENT_TEAMS_RATE_LIMIT_BURST: '10' };
    expect(parseServeOptions([], env)).toMatchObject({ rateLimitPerSecond: 0.5, rateLimitBurst: 10 });
    expect(() => parseServeOptions([], { AGENT_TEAMS_RATE_LIMIT_PER_SECOND: '0' })).toThrow(/PER_SECOND/);
    expect(() => parseServeOptions([], { AGENT_TEAMS_RATE_LIMIT_BURST: '1.5' })).toThrow(/BURST/);
    expect(() => parseServeOptions([], { AGENT_TEAMS_RATE_LIMIT_BURST: '0' })).toThrow(/BURST/);
  });

  it('reads the SQLite synchronous mode from --sqlite-synchronous or its twin, and refuses others', () => {
    expect(parseServeOptions(['--sqlite-synchronous', 'normal'], {}).sqliteSynchronous).toBe('normal');
    expect(parseServeOptions(['--sqlite-synchronous', 'group'], {}).sqliteSynchronous).toBe('group');
    expect(parseServeOptions([], { AGENT_TEAMS_SQLITE_SYNCHRONOUS: 'NORMAL' }).sqliteSynchronous).toBe('normal');
    expect(
      parseServeOptions(['--sqlite-synchronous', 'full'], { AGENT_TEAMS_SQLITE_SYNCHRONOUS: 'normal' })
        .sqliteSynchronous,
    ).toBe('full');
    expect(() => parseServeOptions(['--sqlite-synchronous', 'off'], {})).toThrow(
      /--sqlite-synchronous must be full, group or normal/,
    );
    expect(() => parseServeOptions([], { AGENT_TEAMS_SQLITE_SYNCHRONOUS: 'extra' })).toThrow(
      /AGENT_TEAMS_SQLITE_SYNCHRONOUS must be full, group or normal/,
    );
    // PostgreSQL has its own setting (synchronous_commit): asking for less durability there is refused.
    expect(() => parseServeOptions(['--database', 'postgres://db/x', '--sqlite-synchronous', 'normal'], {})).toThrow(
      /applies to SQLite files/,
    );
    expect(() => parseServeOptions(['--database', 'postgres://db/x', '--sqlite-synchronous', 'group'], {})).toThrow(
      /applies to SQLite files/,
    );
    expect(
      parseServeOptions(['--database', 'postgres://db/x', '--sqlite-synchronous', 'full'], {}).sqliteSynchronous,
    ).toBe('full');
  });

  it('reads --pg-prepared-statements or its twin (default on), and refuses off for a SQLite file', () => {
    const pg = ['--database', 'postgres://db/x'];
    expect(parseServeOptions(pg, {}).pgPreparedStatements).toBe(true);
    expect(parseServeOptions([...pg, '--pg-prepared-statements', 'off'], {}).pgPreparedStatements).toBe(false);
    expect(parseServeOptions(pg, { AGENT_TEAMS_PG_PREPARED_STATEMENTS: 'OFF' }).pgPreparedStatements).toBe(false);
    expect(
      parseServeOptions([...pg, '--pg-prepared-statements', 'on'], { AGENT_TEAMS_PG_PREPARED_STATEMENTS: 'off' })
        .pgPreparedStatements,
    ).toBe(true);
    expect(() => parseServeOptions([...pg, '--pg-prepared-statements', 'no'], {})).toThrow(
      /--pg-prepared-statements must be on or off/,
    );
    expect(() => parseServeOptions([], { AGENT_TEAMS_PG_PREPARED_STATEMENTS: 'off' })).toThrow(
      /AGENT_TEAMS_PG_PREPARED_STATEMENTS applies to PostgreSQL databases/,
    );
    expect(parseServeOptions(['--pg-prepared-statements', 'on'], {}).pgPreparedStatements).toBe(true);
  });

  it('reads --pg-pipeline or its twin (default on), and refuses off for a SQLite file', () => {
    const pg = ['--database', 'postgres://db/x'];
    expect(parseServeOptions(pg, {}).pgPipeline).toBe(true);
    expect(parseServeOptions([...pg, '--pg-pipeline', 'off'], {}).pgPipeline).toBe(false);
    expect(parseServeOptions(pg, { AGENT_TEAMS_PG_PIPELINE: ' Off ' }).pgPipeline).toBe(false);
    expect(parseServeOptions([...pg, '--pg-pipeline', 'on'], { AGENT_TEAMS_PG_PIPELINE: 'off' }).pgPipeline).toBe(true);
    expect(() => parseServeOptions([...pg, '--pg-pipeline', 'yes'], {})).toThrow(/--pg-pipeline must be on or off/);
    expect(() => parseServeOptions([], { AGENT_TEAMS_PG_PIPELINE: 'off' })).toThrow(
      /AGENT_TEAMS_PG_PIPELINE applies to PostgreSQL databases/,
    );
    expect(() => parseServeOptions(['--pg-pipeline='], {})).toThrow();
  });
});
