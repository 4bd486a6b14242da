/**
 * Every user-visible string in English, grouped by the component that shows it (the Chinese
 * table, `i18n-zh.ts`, has the same shape); hosts pick one with the `locale` option.
 */
const en = {
  /** Shared by several components. */
  common: {
    intro: 'A shared space for your agents to work together.',
    error: (code: string) => `Request failed (${code}).`,
    tooLong: (label: string, chars: number, bytes: number) =>
      `${label} must be at most ${chars} characters and ${bytes} UTF-8 bytes.`,
    blank: (label: string) => `${label} must not be blank.`,
    unstorable: (label: string) => `${label} holds a character that cannot be saved (U+0000 or a broken emoji).`,
    you: 'You',
    /** Job statuses. */
    status: {
      QUEUED: 'Queued',
      RUNNING: 'Running',
      RESUMING: 'Resuming',
      CANCELLING: 'Cancelling',
      WAITING_INPUT: 'Needs input',
      COMPLETED: 'Completed',
      FAILED: 'Failed',
      CANCELLED: 'Cancelled',
    } as Record<string, string>,
  },
  nav: {
    yourTeams: 'Your teams',
    teamsEmpty: 'Your teams will appear here.',
    newTeam: '+ New team',
    tip: 'Work together with @ — mention members to route work.',
  },
  create: {
    buildTeam: 'Build your team',
    teamName: 'Team name',
    goal: 'Shared goal',
    teamMembers: 'Team members',
    counter: (n: number) => `${n} / 8 selected · at least 2`,
    searchAgents: 'Search agents',
    loadingAgents: 'Loading your agents…',
    catalogError: 'Cannot load agents. Check Agents access and retry.',
    noMatch: 'No matching agents.',
    noAgents: 'Create at least two agents first, then reload this list.',
    reloadAgents: 'Reload agents',
    createTeam: 'Create team',
    remove: (name: string) => `Remove ${name}`,
  },
  header: {
    teamStatus: 'Team status:',
    /** Team statuses (CLOSED: a team that takes no new work). */
    states: {
      CREATING: 'Setting up',
      READY: 'Ready',
      DISCONNECTED: 'Disconnected',
      CLOSED: 'Closed',
    } as Record<string, string>,
    manage: 'Manage',
    reconnect: 'Reconnect',
    refresh: 'Refresh now',
    deleteTeam: 'Delete finished team',
    confirmDelete: "Delete this team's records? Agent conversations are kept.",
    confirm: 'Delete',
    cancel: 'Keep',
  },
  /** What a team that is not READY means for the person, by team status. */
  banner: {
    CREATING: "Setting up the members' conversations. Work you send now starts once the team is ready.",
    DISCONNECTED:
      'An agent lost access to its model provider. Work is paused and continues where it stopped after you reconnect.',
    CLOSED: 'This team is closed: its record stays readable, but it takes no new work.',
  } as Record<string, string>,
  members: {
    title: 'Members',
    mention: (name: string) => `Mention ${name}`,
    openConversation: (name: string) => `Open ${name} conversation`,
    state: (name: string, state: string) => `${name}: ${state}`,
    inbox: (n: number) => `${n} waiting for you`,
    lead: (name: string) => `${name} (lead)`,
    leadBadge: 'Lead',
    legend: 'Status legend',
    /** Member statuses, in legend order. */
    states: {
      IDLE: 'Idle',
      QUEUED: 'Queued',
      RUNNING: 'Running',
      WAITING_INPUT: 'Waiting for you',
      WAITING_CHANGE: 'Waiting for a change',
      FAILED: 'Failed',
      RETIRED: 'Retired',
      PROVISIONING: 'Preparing',
    } as Record<string, string>,
  },
  usage: {
    title: 'Usage and cost',
    team: 'Whole team',
    line: (tokens: string, cost: string) => `${tokens} tokens · cost ${cost}`,
    /** `cached`: the input read from the provider's prompt cache, null when none was. */
    detail: (input: string, cached: string | null, output: string, calls: string) =>
      `${input} in${cached === null ? '' : ` (${cached} cached)`} · ${output} out · ${calls} model calls`,
  },
  feed: {
    activity: 'Team activity',
    emptyFeed: 'Start working together',
    live: '● Live updates',
    polling: 'Updates interrupted · retrying automatically',
    /** The toggle between the activity feed and the task board. */
    board: 'Task board',
  },
  card: {
    followUp: 'Follow-up to:',
    resultTitle: (name: string) => `${name} · Result`,
    resultMissing: 'Result is no longer in the retained record. Open the original conversation.',
    returnedTo: (name: string) => `Returned to ${name}`,
    replyTo: (name: string, status: string) => `Reply to ${name}: ${status}`,
    originalConversation: 'the original conversation',
    details: 'Task details',
    cancelTask: 'Cancel task',
    openConv: 'Open conversation',
    budget: 'Stopped: a spending budget is used up.',
  },
  answer: {
    questionFrom: (name: string) => `${name} asks`,
    yourAnswer: 'Your answer',
    jsonAnswer: 'Inspect the conversation, then enter the explicit response as JSON',
    submit: 'Submit response',
    invalidJson: 'The response must be valid JSON.',
    jsonTooLong: (bytes: number) => `The response must be at most ${bytes} UTF-8 bytes of JSON.`,
    /** Why an answer was refused, by error code. */
    refused: {
      INPUT_CHANGED:
        'The question changed after you started your answer. Read the new question; your answer is kept — submit again to send it.',
      NOT_WAITING_INPUT: 'This question no longer waits for an answer.',
    } as Record<string, string>,
  },
  live: {
    calling: (tool: string) => `Calling ${tool}…`,
  },
  composer: {
    message: 'Message to team',
    placeholder: '@ a member and describe the work…',
    chooseMembers: '@ Choose members',
    everyone: 'Everyone',
    sendHint: '⌘ / Ctrl + Enter to send',
    send: 'Send',
    removeRecipient: (name: string) => `Remove recipient ${name}`,
    task: 'Task',
  },
  conversation: {
    title: (name: string) => `${name} · Conversation`,
    close: 'Close',
    more: 'Show more',
    loading: 'Loading…',
    empty: 'No messages yet.',
    messages: 'Messages',
    working: 'Working now',
    /** Message roles. */
    USER: 'Input',
    ASSISTANT: 'Answer',
    toolCall: (tool: string) => `Tool call · ${tool}`,
    toolResult: (tool: string) => `Tool result · ${tool}`,
  },
};

/** The string table type; the Chinese table must provide every key. */
export type Strings = typeof en;

/** True for a Chinese locale (`zh`, `zh-CN`, …). */
export function isChinese(locale: string | undefined): boolean {
  return locale?.toLowerCase().startsWith('zh') ?? false;
}

/**
 * The strings for a locale: English at once; Chinese from its own chunk, loaded on first use.
 *
 * @remarks The Chinese table is 1.7 KiB gzip of a bundle every English page would load for
 * nothing (docs/decisions/0080); the classic-script build inlines it.
 */
export async function loadStrings(locale: string | undefined): Promise<Strings> {
  return isChinese(locale) ? (await import('./i18n-zh.js')).zh : en;
}

/** The English table, ready before anything is loaded. */
export const ENGLISH: Strings = en;
