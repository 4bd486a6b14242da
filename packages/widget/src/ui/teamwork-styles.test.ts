import { describe, expect, it } from 'vitest';
import { CONVERSATION_STYLES } from './conversation-styles.js';
import { TEAMWORK_STYLES } from './teamwork-styles.js';

/** The text of every rule of `css` whose selector matches `element` (both chunks' sheets share one shadow root). */
function rulesFor(css: string, element: Element): string[] {
  const style = document.createElement('style');
  style.textContent = css;
  document.head.append(style);
  try {
    return [...(style.sheet?.cssRules ?? [])]
      .filter((rule): rule is CSSStyleRule => rule instanceof CSSStyleRule && element.matches(rule.selectorText))
      .map((rule) => rule.cssText);
  } finally {
    style.remove();
  }
}

function element(html: string): Element {
  const box = document.createElement('div');
  box.innerHTML = html;
  const found = box.querySelector('[data-probe]');
  if (!found) throw new Error('no probe');
  return found;
}

describe('the teamwork chunk stylesheet', () => {
  it('dashes team message cards only, not the conversation entries that share the `msg` class', () => {
    // A dashed style on every side gave each entry of the conversation dialog a box (medium width).
    const entry = element('<dialog class="conv"><ul class="msgs"><li class="msg USER" data-probe></li></ul></dialog>');
    expect(rulesFor(TEAMWORK_STYLES, entry)).toEqual([]);
    expect(rulesFor(CONVERSATION_STYLES, entry).join(' ')).toContain('border-left: 3px solid');

    const card = element('<section class="feed"><article class="card msg" data-probe></article></section>');
    expect(rulesFor(TEAMWORK_STYLES, card).join(' ')).toContain('border-style: dashed');
    const badge = element('<article class="card msg"><span class="badge" data-probe></span></article>');
    expect(rulesFor(TEAMWORK_STYLES, badge).join(' ')).toContain('text-transform: lowercase');
  });
});
