/**
 * A small Dockerfile linter for the rules this project holds its image to (in the spirit of
 * hadolint, which needs a binary this machine cannot fetch): pinned base images, a multi-stage
 * build, a non-root final stage with a HEALTHCHECK, the data volume, exec-form entry points,
 * tidy apt-get, pinned global npm installs, COPY rather than ADD.
 */

/** One instruction: its keyword and its arguments (continuation lines joined). */
export interface Instruction {
  readonly keyword: string;
  readonly args: string;
  readonly line: number;
}

/** Splits a Dockerfile into instructions (comments dropped, `\` continuations joined). */
export function parseDockerfile(text: string): Instruction[] {
  const instructions: Instruction[] = [];
  let pending = '';
  let start = 0;
  text.split('\n').forEach((raw, index) => {
    const line = raw.trim();
    if (pending === '' && (line === '' || line.startsWith('#'))) return;
    if (pending === '') start = index + 1;
    pending += `${line.replace(/\\$/, '').trim()} `;
    if (line.endsWith('\\')) return;
    const [keyword = '', ...rest] = pending.trim().split(/\s+/);
    instructions.push({ keyword: keyword.toUpperCase(), args: rest.join(' '), line: start });
    pending = '';
  });
  return instructions;
}

/** The problems of a Dockerfile, each with its line; empty when it passes. */
export function lintDockerfile(text: string): string[] {
  const all = parseDockerfile(text);
  const problems: string[] = [];
  const at = (i: Instruction, message: string) => problems.push(`Dockerfile:${i.line}: ${message}`);
  const args = new Map(
    all.filter((i) => i.keyword === 'ARG').map((i) => i.args.split('=') as [string, string | undefined]),
  );
  const stages = all.filter((i) => i.keyword === 'FROM');
  if (stages.length < 2) problems.push('Dockerfile: use a multi-stage build (build, then a runtime stage)');
  for (const from of stages) {
    const image = from.args.split(/\s+/)[0] ?? '';
    const resolved = image.replace(/^\$\{(\w+)\}$/, (_, name: string) => args.get(name) ?? '');
    const stageNames = stages.map((s) => s.args.split(/\s+AS\s+/i)[1]);
    if (stageNames.includes(resolved)) continue;
    if (!/:[\w.-]*\d[\w.-]*$/.test(resolved) || resolved.endsWith(':latest')) {
      at(from, `pin the base image to a version tag (got "${resolved || image}")`);
    }
    if (!/\s+AS\s+\w/i.test(from.args)) at(from, 'name every stage (FROM … AS name)');
  }
  const lastFrom = all.lastIndexOf(stages.at(-1) as Instruction);
  const final = all.slice(lastFrom);
  const user = final.filter((i) => i.keyword === 'USER').at(-1);
  if (!user || /^(root|0)(:|$)/.test(user.args))
    problems.push('Dockerfile: the final stage must run as a non-root USER');
  if (!final.some((i) => i.keyword === 'HEALTHCHECK')) problems.push('Dockerfile: the final stage needs a HEALTHCHECK');
  if (!final.some((i) => i.keyword === 'VOLUME' && i.args.includes('/data'))) {
    problems.push('Dockerfile: the final stage must declare the /data volume (the SQLite file)');
  }
  for (const i of final) {
    if (i.keyword === 'COPY' && !i.args.includes('--from=')) at(i, 'the final stage copies only from earlier stages');
  }
  for (const i of all) {
    if ((i.keyword === 'ENTRYPOINT' || i.keyword === 'CMD') && !i.args.startsWith('[')) {
      at(i, `${i.keyword} in exec form (a JSON array), so signals reach node`);
    }
    if (i.keyword === 'ADD') at(i, 'use COPY, not ADD');
    if (i.keyword === 'RUN' && /apt-get install/.test(i.args)) {
      if (!i.args.includes('--no-install-recommends')) at(i, 'apt-get install --no-install-recommends');
      if (!i.args.includes('rm -rf /var/lib/apt/lists/*')) at(i, 'remove /var/lib/apt/lists/* in the same RUN');
    }
    if (i.keyword === 'RUN' && /npm install -g\s/.test(i.args) && !/npm install -g\s+\S+@\d/.test(i.args)) {
      at(i, 'pin global npm installs (name@version)');
    }
  }
  return problems;
}
