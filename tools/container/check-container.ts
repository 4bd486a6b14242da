/**
 * `pnpm container:check`: what CI can prove about the image without a container runtime. Lints
 * the Dockerfile and compose.yaml, runs the image's build steps (the same scripts its RUN lines
 * call) into a temporary folder, then starts the installed server with the image's environment
 * and configuration and runs the image's HEALTHCHECK command against it.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkInstalledPackages } from '../pack-check/installed-packages.js';
import { checkServe } from '../pack-check/serve-check.js';
import { lintCompose } from './compose-lint.js';
import { lintDockerfile, parseDockerfile } from './dockerfile-lint.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const step = (what: string) => process.stdout.write(`\n[container-check] ${what}\n`);

/** The final stage's ENV as a map (`ENV A=1 B=2`). */
function imageEnv(instructions: ReturnType<typeof parseDockerfile>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const i of instructions.filter((x) => x.keyword === 'ENV')) {
    for (const pair of i.args.split(/\s+/)) {
      const [name, value] = pair.split('=');
      if (name && value !== undefined) env[name] = value;
    }
  }
  return env;
}

async function main(): Promise<void> {
  const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8');
  step('lint Dockerfile and compose.yaml');
  const problems = [...lintDockerfile(dockerfile), ...lintCompose(readFileSync(join(root, 'compose.yaml'), 'utf8'))];
  if (problems.length > 0) throw new Error(problems.join('\n'));
  const instructions = parseDockerfile(dockerfile);
  const health = instructions.find((i) => i.keyword === 'HEALTHCHECK');
  const healthCommand = JSON.parse(health?.args.slice(health.args.indexOf('CMD ') + 4) ?? '[]') as string[];

  const work = mkdtempSync(join(tmpdir(), 'agent-teams-container-'));
  try {
    step('the image build steps: pack-all.sh, then install-app.sh');
    const tarballs = join(work, 'tarballs');
    const app = join(work, 'app');
    execFileSync(join(root, 'tools/container/pack-all.sh'), [tarballs], { stdio: 'inherit' });
    const addon = join(root, 'packages/api/node_modules/better-sqlite3/build/Release/better_sqlite3.node');
    execFileSync(join(root, 'tools/container/install-app.sh'), [tarballs, app], {
      stdio: 'inherit',
      env: { ...process.env, AGENT_TEAMS_SQLITE_ADDON: addon },
    });
    checkInstalledPackages(app, ['core', 'widget', 'api']);

    step("the server with the image's environment and compose's configuration, and the HEALTHCHECK");
    const database = join(work, 'data/teams.sqlite');
    // As in the image, but on loopback and a free port (CI shares the machine).
    const env = {
      ...imageEnv(
        instructions.slice(instructions.lastIndexOf(instructions.filter((i) => i.keyword === 'FROM').at(-1) as never)),
      ),
      AGENT_TEAMS_HOST: '127.0.0.1',
      AGENT_TEAMS_PORT: '0',
      AGENT_TEAMS_DATABASE: database,
      AGENT_TEAMS_CONFIG: join(root, 'deploy/agent-teams.json'),
    };
    await checkServe(app, database, {
      args: ['agent-teams', 'serve'],
      env,
      token: 'change-me-alice',
      whileServing: async (url) => {
        const [command = 'node', ...args] = healthCommand;
        execFileSync(command, args, { env: { ...process.env, AGENT_TEAMS_PORT: new URL(url).port }, stdio: 'inherit' });
        process.stdout.write('[container-check] HEALTHCHECK passed\n');
      },
    });
    step('ok');
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`[container-check] FAILED: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
