/**
 * The export condition under which the workspace's packages point at their TypeScript source
 * (`src/`) instead of the build (`dist/`); tsconfig's `customConditions` and the `node
 * --conditions` flag of every script name it too.
 */
export declare const SOURCE_CONDITION = '@agent-teams/source';
/**
 * Vite resolve options that make tests import `@agent-teams/*` from source, so `pnpm test`
 * needs no build and always runs what is in the working tree (docs/decisions/0150).
 */
export declare const sourceConditions: {
  resolve: {
    conditions: string[];
  };
  ssr: {
    resolve: {
      conditions: string[];
    };
  };
};
