import type { KyselyPlugin } from 'kysely';

/**
 * A Kysely plugin holding back every answer while stalling, as a pooled connection whose network
 * path died silently: the query was sent, no answer comes. `held` releases the answers held.
 */
export function stallingAnswers(): {
  stall: KyselyPlugin;
  held: (() => void)[];
  setStalling: (on: boolean) => boolean;
} {
  let stalling = false;
  const held: (() => void)[] = [];
  const stall: KyselyPlugin = {
    transformQuery: ({ node }) => node,
    transformResult: async ({ result }) => {
      if (stalling) await new Promise<void>((resolve) => held.push(resolve));
      return result;
    },
  };
  return { stall, held, setStalling: (on: boolean) => (stalling = on) };
}
