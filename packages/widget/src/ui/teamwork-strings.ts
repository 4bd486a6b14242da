/**
 * Strings of the teamwork chunk (messages, their form and the budget), English and Chinese: they
 * travel with the chunk instead of weighing on `widget.js` (docs/decisions/0080).
 */
const en = {
  message: 'Message',
  form: 'Message members',
  to: 'To',
  deliveryLabel: 'Delivery',
  quiet: 'Quiet: read on their next turn',
  followUp: 'Follow-up: starts a turn',
  send: 'Send message',
  sent: 'Message sent.',
  pick: 'Choose at least one member.',
  closed: 'The team is closed: no new messages.',
  /** Why a message was refused, by error code. */
  refused: {
    MAILBOX_FULL: 'A recipient already has 64 undelivered messages. Wait for its next turn, then send again.',
    TEAM_CLOSED: 'The team is closed: it takes no new messages.',
    MEMBER_RETIRED: 'A recipient is retired and receives no messages.',
  } as Record<string, string>,
  delivery: { QUIET: 'quiet', FOLLOW_UP: 'follow-up' } as Record<string, string>,
  budget: 'Budget',
  noBudget: 'No budget set.',
  tokens: (used: string, max: string) => `${used} / ${max} tokens`,
  cost: (used: string, max: string) => `cost ${used} / ${max}`,
  usedUp: 'Used up: new model calls are refused.',
  maxTokens: 'Token limit (empty: none)',
  maxCost: 'Cost limit (empty: none)',
  setBudget: 'Set budget',
  save: 'Save budget',
  invalid: 'Limits must be positive numbers.',
};

/** The strings of the teamwork chunk. */
export type TeamworkStrings = typeof en;

const zh: TeamworkStrings = {
  message: '消息',
  form: '给成员发消息',
  to: '发给',
  deliveryLabel: '送达方式',
  quiet: '安静：在对方下一轮读到',
  followUp: '跟进：会开始一轮',
  send: '发送消息',
  sent: '消息已发送。',
  pick: '请至少选择一个成员。',
  closed: '团队已关闭：不能再发消息。',
  refused: {
    MAILBOX_FULL: '有收件人已有 64 条未送达的消息。请等它的下一轮后再发送。',
    TEAM_CLOSED: '团队已关闭：不再接收新消息。',
    MEMBER_RETIRED: '有收件人已退役，不再接收消息。',
  },
  delivery: { QUIET: '安静', FOLLOW_UP: '跟进' },
  budget: '预算',
  noBudget: '未设置预算。',
  tokens: (used, max) => `${used} / ${max} tokens`,
  cost: (used, max) => `费用 ${used} / ${max}`,
  usedUp: '已用完：新的模型调用会被拒绝。',
  maxTokens: 'Token 上限（留空：不限）',
  maxCost: '费用上限（留空：不限）',
  setBudget: '设置预算',
  save: '保存预算',
  invalid: '上限必须是正数。',
};

/** The table for the widget's `lang` (`zh` or `en`). */
export function teamworkStrings(lang: string): TeamworkStrings {
  return lang === 'zh' ? zh : en;
}
