import { asOwnerId, type OwnerId } from '@agent-teams/core';

/**
 * Resolves an `Authorization` value (`Bearer <token>`, from HTTP or graphql-ws
 * `connectionParams.authorization`) to its owner, or null for none or an unknown token.
 */
export function createTokenAuth(
  tokens: ReadonlyMap<string, string>,
): (authorization: string | null | undefined) => OwnerId | null {
  return (authorization) => {
    if (typeof authorization !== 'string') return null;
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!match?.[1]) return null;
    const owner = tokens.get(match[1]);
    return owner === undefined ? null : asOwnerId(owner);
  };
}
