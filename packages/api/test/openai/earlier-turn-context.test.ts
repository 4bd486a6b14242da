import { describe, it } from 'vitest';
import { checkEarlierTurnsWithoutContext } from './earlier-turn-context.js';
import { useRuntimeFixture } from './runtime-fixture.js';

const fixture = useRuntimeFixture();

describe('OpenAiRuntime: earlier turns go without their team context (SQLite, history kept)', () => {
  it('sends each earlier turn without the context it froze and the current turn with it', () =>
    checkEarlierTurnsWithoutContext(fixture()));
});
