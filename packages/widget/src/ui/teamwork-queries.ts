import { MESSAGE_FIELDS } from '../api.js';

/** One page of the team's messages, oldest first (the teamwork chunk follows `endCursor`). */
export const MESSAGES_QUERY = `query Messages($id: ID!, $after: String) { team(id: $id) { id
  messages(first: 50, after: $after) { pageInfo { hasNextPage endCursor } edges { node { ${MESSAGE_FIELDS} } } } } }`;
export const SEND_MESSAGE = `mutation SendMessage($input: SendMessageInput!) { sendMessage(input: $input) { message { ${MESSAGE_FIELDS} } } }`;
const BUDGET = 'budget { maxTokens maxCost usedTokens usedCost }';
export const BUDGET_QUERY = `query Budget($id: ID!) { team(id: $id) { id ${BUDGET} } }`;
export const SET_BUDGET = `mutation SetBudget($input: SetTeamBudgetInput!) { setTeamBudget(input: $input) { team { id ${BUDGET} } } }`;

/** `Team.budget` (null limits: none). */
export interface BudgetView {
  maxTokens: number | null;
  maxCost: number | null;
  usedTokens: number;
  usedCost: number;
}
