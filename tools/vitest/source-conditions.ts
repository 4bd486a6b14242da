import { defaultClientConditions, defaultServerConditions, type UserConfig } from 'vite';

/**
 * The export condition under which the workspace's packages point at their TypeScript source
 * (`src/`) instead of the build (`dist/`); tsconfig's `customConditions` and the `node
 * --conditions` flag of every script name it too.
 */
export const SOURCE_CONDITION = '@agent-teams/source';

/**
 * Vite resolve options that make tests import `@agent-teams/*` from source, so `pnpm test`
 * needs no build and always runs what is in the working tree (docs/decisions/0150).
 */
export const sourceConditions = {
  resolve: { conditions: [SOURCE_CONDITION, ...defaultClientConditions] },
  // Without `module`: tests load the build Node loads (OpenTelemetry's `module` build has
  // extensionless imports that Node, which externalised packages run in, cannot resolve).
  ssr: {
    resolve: {
      conditions: [SOURCE_CONDITION, ...defaultServerConditions.filter((condition) => condition !== 'module')],
    },
  },
} satisfies UserConfig;
