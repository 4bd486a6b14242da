/**
 * Checks compose.yaml for what docs/deployment.md promises, without a YAML parser (the file is
 * ours and plain): PostgreSQL with a health check, two servers on it with their own ports, each
 * reading the mounted configuration and waiting for the database to be healthy.
 */
export function lintCompose(text: string): string[] {
  const problems: string[] = [];
  const service = (name: string): string | null => {
    const match = new RegExp(`^  ${name}:\\n((?:    .*\\n|\\s*\\n)*)`, 'm').exec(`${text}\n`);
    return match?.[1] ?? null;
  };
  const postgres = service('postgres');
  if (!postgres) problems.push('compose.yaml: no postgres service');
  else {
    if (!/image: postgres:\d+(\.\d+)*/.test(postgres)) problems.push('compose.yaml: pin the postgres image version');
    if (!postgres.includes('healthcheck:')) problems.push('compose.yaml: postgres needs a healthcheck');
  }
  const ports = new Set<string>();
  for (const name of ['server-1', 'server-2']) {
    const body = service(name);
    if (!body) {
      problems.push(`compose.yaml: no ${name} service`);
      continue;
    }
    if (!/AGENT_TEAMS_DATABASE: postgres:\/\/\S+@postgres:5432\//.test(body)) {
      problems.push(`compose.yaml: ${name} must use the postgres service as its database`);
    }
    if (
      !/AGENT_TEAMS_CONFIG: \/config\/agent-teams\.json/.test(body) ||
      !body.includes(':/config/agent-teams.json:ro')
    ) {
      problems.push(`compose.yaml: ${name} must read the mounted configuration, read-only`);
    }
    if (!/postgres:\n\s+condition: service_healthy/.test(body)) {
      problems.push(`compose.yaml: ${name} must wait for postgres to be healthy`);
    }
    const port = /- "(\d+):4000"/.exec(body)?.[1];
    if (!port) problems.push(`compose.yaml: ${name} must publish port 4000`);
    else if (ports.has(port)) problems.push(`compose.yaml: ${name} reuses host port ${port}`);
    else ports.add(port);
  }
  return problems;
}
