import { describe, it } from 'vitest';
import { checkCachedInputTokens } from './cached-input-tokens.js';
import { useRuntimeFixture } from './runtime-fixture.js';

const fixture = useRuntimeFixture();

describe('OpenAiRuntime: cached input tokens (SQLite)', () => {
  it('records the cached input tokens the provider reports and prices them (decision 0243)', () =>
    checkCachedInputTokens(fixture()));
});
