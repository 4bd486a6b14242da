import { describe, expect, it } from 'vitest';
import { createTokenAuth } from './token-auth.js';

describe('createTokenAuth', () => {
  const auth = createTokenAuth(new Map([['tok-alice', 'alice']]));

  it('resolves a known bearer token to its owner, case-insensitive scheme', () => {
    expect(auth('Bearer tok-alice')).toBe('alice');
    expect(auth('bearer tok-alice')).toBe('alice');
  });

  it('answers null for no header, another scheme, an unknown token or extra words', () => {
    expect(auth(null)).toBeNull();
    expect(auth(undefined)).toBeNull();
    expect(auth('Basic tok-alice')).toBeNull();
    expect(auth('Bearer tok-bob')).toBeNull();
    expect(auth('Bearer tok-alice extra')).toBeNull();
    expect(auth('tok-alice')).toBeNull();
  });
});
