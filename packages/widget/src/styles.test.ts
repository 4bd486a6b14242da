import { describe, expect, it } from 'vitest';
import { PALETTES, STYLES } from './styles.js';

function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = Number.parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * (r ?? 0) + 0.7152 * (g ?? 0) + 0.0722 * (b ?? 0);
}

function contrast(a: string, b: string): number {
  const [x, y] = [luminance(a), luminance(b)];
  return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05);
}

describe('theme palettes', () => {
  it.each(Object.entries(PALETTES))('meet WCAG AA (4.5:1) for every text pair drawn (%s)', (_name, p) => {
    const pairs: [string, string][] = [
      [p.foreground, p.background],
      [p.foreground, p.muted],
      [p['muted-foreground'], p.background],
      [p['muted-foreground'], p.muted],
      [p['primary-foreground'], p.primary],
      [p.primary, p.background],
      [p.destructive, p.background],
    ];
    for (const [fg, bg] of pairs) expect(contrast(fg, bg), `${fg} on ${bg}`).toBeGreaterThanOrEqual(4.5);
  });

  it('lets the host override each colour and follows prefers-color-scheme in auto', () => {
    expect(STYLES).toContain('--bg:var(--agent-teams-background,#ffffff)');
    expect(STYLES).toContain(
      '@media (prefers-color-scheme:dark){.root[data-theme=auto]{--bg:var(--agent-teams-background,#15181d)',
    );
  });
});
