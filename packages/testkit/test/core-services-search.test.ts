import { asAgentId, ErrorCode, Limits, nowTimestamp } from '@agent-teams/core';
import { describe, expect, it } from 'vitest';
import { agentDefinition, DEMO_AGENTS, StaticCatalog } from '../src/index.js';
import { alice, expectCode, harness, readyTeam, teamInput } from './core-harness.js';

describe('mentions.search', () => {
  it('lists members of READY teams, newest team first, roster order, labelled "<team> / <member>"', async () => {
    const h = harness();
    await readyTeam(h, alice, { clientRequestId: 'a', name: 'Alpha' });
    await readyTeam(h, alice, { clientRequestId: 'b', name: 'Bravo' });
    const targets = await h.core.mentions.search(alice, '');
    expect(targets.map((t) => t.label)).toEqual(['Bravo / Scout', 'Bravo / Critic', 'Alpha / Scout', 'Alpha / Critic']);
    expect(targets[0]?.description).toBe('Research');
    expect(targets[0]?.id).toBe(`${targets[0]?.team.id}/${targets[0]?.member.id}`);
  });

  it('matches the case-folded query against team, member and agent names', async () => {
    const h = harness();
    await readyTeam(h);
    expect((await h.core.mentions.search(alice, 'REVIEW')).map((t) => t.member.name)).toEqual(['Critic']);
    expect((await h.core.mentions.search(alice, 'alpha sc')).map((t) => t.member.name)).toEqual(['Scout']);
    expect(await h.core.mentions.search(alice, 'nobody')).toEqual([]);
  });

  it('falls back to the member name when "<team> / <member>" passes 120 UTF-16 units', async () => {
    const h = harness();
    const long = 'T'.repeat(80);
    const members = [
      { name: 'M'.repeat(40), agentId: 'writer' },
      { name: 'S'.repeat(37), agentId: 'writer' },
    ];
    await readyTeam(h, alice, { name: long, members });
    const labels = (await h.core.mentions.search(alice, '')).map((t) => t.label);
    expect(labels).toEqual(['M'.repeat(40), `${long} / ${'S'.repeat(37)}`]);
    expect(labels.every((label) => label.length <= Limits.mentionLabelUtf16)).toBe(true);
  });

  it('skips teams that are not READY and returns at most 16 targets', async () => {
    const h = harness();
    const eight = Array.from({ length: 8 }, (_, i) => ({ name: `M${i}`, agentId: 'writer' }));
    for (const key of ['a', 'b', 'c']) await readyTeam(h, alice, { clientRequestId: key, name: key, members: eight });
    h.runtime.failEnsure = true;
    await h.core.teams.create(alice, teamInput({ clientRequestId: 'creating', name: 'Creating' }));
    const targets = await h.core.mentions.search(alice, '');
    expect(targets).toHaveLength(Limits.mentionResults);
    expect(targets.some((t) => t.team.name === 'Creating')).toBe(false);
    expect(targets[0]?.team.name).toBe('c');
  });

  it.each([
    { label: 'ASCII', unit: 'a' },
    { label: 'emoji', unit: '😀' },
  ])('accepts a $label query of 200 characters and refuses 201', async ({ unit }) => {
    const h = harness();
    expect(await h.core.mentions.search(alice, unit.repeat(200))).toEqual([]);
    const details = await expectCode(() => h.core.mentions.search(alice, unit.repeat(201)), ErrorCode.INVALID_INPUT);
    expect(details.field).toBe('query');
  });
});

describe('agents.search and agents.get', () => {
  const catalog = [
    ...DEMO_AGENTS,
    agentDefinition({ name: 'planner', title: 'Plan', description: 'Break work down' }),
    agentDefinition({ name: 'editor', title: 'Editor', description: 'Polish REPORTS' }),
  ];

  it('walks every match in catalog order, one page at a time', async () => {
    const search = createSearch(new StaticCatalog(catalog));
    const names: string[] = [];
    let after: string | null = null;
    for (;;) {
      const page = await search({ query: 'report', first: 1, after });
      names.push(...page.edges.map((e) => e.node.name));
      if (!page.pageInfo.hasNextPage) break;
      after = page.pageInfo.endCursor;
    }
    expect(names).toEqual(['writer', 'editor']);
  });

  it('matches name, title and description case-insensitively and answers all agents without a query', async () => {
    const search = createSearch(new StaticCatalog(catalog));
    expect((await search({ query: 'PLAN' })).edges.map((e) => e.node.name)).toEqual(['planner']);
    expect((await search({ query: 'quality' })).edges.map((e) => e.node.name)).toEqual(['reviewer']);
    expect((await search({})).edges).toHaveLength(catalog.length);
  });

  it('refuses a cursor reused with another query', async () => {
    const search = createSearch(new StaticCatalog(catalog));
    const page = await search({ query: 're', first: 1 });
    await expectCode(() => search({ query: 'plan', after: page.pageInfo.endCursor }), ErrorCode.CURSOR_MISMATCH);
  });

  it('refuses a query over 200 characters', async () => {
    const search = createSearch(new StaticCatalog(catalog));
    expect((await search({ query: 'x'.repeat(200) })).edges).toEqual([]);
    expect((await expectCode(() => search({ query: 'x'.repeat(201) }), ErrorCode.INVALID_INPUT)).field).toBe('query');
  });

  it('gets one agent by id, or null', async () => {
    const h = harness();
    expect((await h.core.agents.get(asAgentId('writer')))?.title).toBe('Writer');
    expect(await h.core.agents.get(asAgentId('nobody'))).toBeNull();
  });

  it('propagates CATALOG_UNAVAILABLE', async () => {
    const h = harness();
    h.catalog.setAvailable(false);
    await expectCode(() => h.core.agents.search({}), ErrorCode.CATALOG_UNAVAILABLE);
  });
});

describe('conversations.list', () => {
  it('pages a member’s conversation oldest first and binds the cursor to that conversation', async () => {
    const h = harness();
    const { members } = await readyTeam(h);
    const [scout, critic] = members;
    if (scout === undefined || critic === undefined) throw new Error('fixture team needs two members');
    const message = (text: string) => ({ role: 'USER' as const, text, toolName: null, jobId: null });
    await h.store.appendConversation(
      scout.conversationId,
      [message('one'), message('two'), message('three')],
      nowTimestamp(h.clock),
    );
    const first = await h.core.conversations.list(scout, { first: 2 });
    expect(first.edges.map((e) => e.node.text)).toEqual(['one', 'two']);
    const rest = await h.core.conversations.list(scout, { first: 2, after: first.pageInfo.endCursor });
    expect(rest.edges.map((e) => e.node.text)).toEqual(['three']);
    expect(rest.pageInfo.hasNextPage).toBe(false);
    await expectCode(
      () => h.core.conversations.list(critic, { after: first.pageInfo.endCursor }),
      ErrorCode.CURSOR_MISMATCH,
    );
  });
});

/** The `agents.search` of a core over `catalog`. */
function createSearch(catalog: StaticCatalog) {
  return harness({ catalog }).core.agents.search;
}
