// @vitest-environment jsdom
// Importing the element subpath defines <agent-teams-widget>; the standalone bundle is exported too.
import { createRequire } from 'node:module';
import { expect, it } from 'vitest';

it('defines <agent-teams-widget> on import of @agent-teams/widget/element', async () => {
  expect(customElements.get('agent-teams-widget')).toBeUndefined();
  await import('@agent-teams/widget/element');
  expect(customElements.get('agent-teams-widget')).toBeDefined();
});

it('exports the standalone bundle as @agent-teams/widget/widget.js', () => {
  const file = createRequire(import.meta.url).resolve('@agent-teams/widget/widget.js');
  expect(file).toMatch(/widget\.js$/);
});
