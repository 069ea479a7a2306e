import { codeOnly, type FieldDoc } from './field-doc'

/** The limit fields a team and a key's end users take, as a key's (`keys[].limits`). */
function limitDocs(prefix: string, whose: string): Record<string, string | FieldDoc> {
  return {
    [prefix]: `Rate limits and token budgets of ${whose}, of the shapes a key has, checked with the key's in one step.`,
    [`${prefix}.requestsPerMinute`]: { text: 'Requests per minute.', defaultText: 'none' },
    [`${prefix}.inputTokensPerMinute`]: { text: 'Input tokens per minute.', defaultText: 'none' },
    [`${prefix}.outputTokensPerMinute`]: { text: 'Output tokens per minute.', defaultText: 'none' },
    [`${prefix}.concurrency`]: { text: 'Requests in flight at once.', defaultText: 'none' },
    [`${prefix}.tokensPerDay`]: {
      text: 'Input plus output tokens per UTC day.',
      defaultText: 'none',
    },
    [`${prefix}.tokensPerMonth`]: {
      text: 'Input plus output tokens per UTC month.',
      defaultText: 'none',
    },
  }
}

/** A money budget's fields, one or each of a list, of `whose`. */
function budgetDocs(prefix: string, whose: string): Record<string, string | FieldDoc> {
  const fields = (at: string) => ({
    [`${at}.usd`]: `What ${whose} may spend in the period, in USD at the prices charged; 0 refuses every request.`,
    [`${at}.per`]: 'The period: a UTC day, a UTC month, or for ever (`lifetime`).',
    [`${at}.alertAt`]: {
      text: 'A share of `usd` (0.8 = 80 %) whose crossing calls `onBudgetAlert`, once per period.',
      defaultText: 'none',
    },
  })
  return {
    [prefix]: {
      text: `Money budgets of ${whose}: one, or a list with one per period.`,
      defaultText: 'none',
    },
    ...fields(prefix),
    ...fields(`${prefix}[]`),
  }
}

/** The descriptions of teams, a key's team and end users, and the organisation (issue 33). */
export const teamFieldDocs: Readonly<Record<string, string | FieldDoc>> = {
  teams: {
    text: "Teams of keys: every request of a key in a team must fit the key's limits and the team's, checked and charged in one step. See docs/limits-and-usage.md.",
    defaultText: 'none',
  },
  'teams[].id':
    'The team id keys name (`keys[].team`), carried by usage records, events and telemetry.',
  'teams[].name': { text: 'A name for people.', defaultText: 'the id' },
  'teams[].groups': {
    text: "The groups the team's keys may use; a key of the team gets the groups both allow.",
    defaultText: 'all groups',
  },
  'teams[].quota': "A lifetime allowance shared by the team's keys.",
  'teams[].quota.tokens': {
    text: "Input plus output tokens the team's keys may use in all.",
    defaultText: 'unlimited',
  },
  ...limitDocs('teams[].limits', "the team's keys together"),
  ...budgetDocs('teams[].budget', "the team's keys together"),
  teamStore: codeOnly(
    'TeamStore',
    'Where teams the config does not list are looked up (a database).',
    "the config's teams",
  ),
  organisation: 'The organisation above every team and key.',
  ...budgetDocs('organisation.budget', 'all the traffic of the gateway'),
  'keys[].team': {
    text: 'The team this key belongs to (`teams[].id`).',
    defaultText: 'none',
  },
  'keys[].perUser': {
    text: 'Limits every end user of this key gets on its own. The end user is named by `x-gateway-user`, the body’s `user` (OpenAI, Responses) or `metadata.user_id` (Anthropic), or the host app in code.',
    defaultText: 'none',
  },
  ...limitDocs('keys[].perUser.limits', 'each end user of the key'),
  ...budgetDocs('keys[].perUser.budget', 'each end user of the key'),
  'teams[].mcp': {
    text: "The MCP servers and tools the team's keys may use: a key of the team is allowed a tool only when its own grant (if it has one) and the team's both allow it.",
    defaultText: 'none',
  },
  'teams[].mcp.servers':
    'Server ids (`*` patterns) whose tools, prompts and resources are allowed.',
  'teams[].mcp.tools':
    'Prefixed tool names (`{server}__{tool}`, `*` patterns); with `servers`, they narrow it.',
}
