import { cleanup } from '@solidjs/testing-library';
import { afterEach } from 'vitest';

// @solidjs/testing-library cleans up only with vitest globals (stack.md G6).
afterEach(() => cleanup());
