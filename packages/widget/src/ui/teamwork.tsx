/**
 * The teamwork chunk (docs/decisions/0080): team messages in the feed, the person's message form
 * and the team's usage and budget, and the answer form of a waiting question (most cards never
 * show one). The workspace loads it when a team opens, after the first render.
 */
export { AnswerForm } from './answer-form.js';
export { BudgetPanel } from './budget-panel.js';
export { MessageForm } from './message-form.js';
export { MessageItem } from './message-item.js';
export { StatusLegend } from './status-legend.js';
export { UsageSummary } from './usage-summary.js';
