import type { FieldDoc } from './field-doc'

/** The descriptions of the `console` section (see `field-docs.ts`). */
export const consoleFieldDocs: Readonly<Record<string, string | FieldDoc>> = {
  console: {
    text: 'The web console (`model-gateway/console`): API keys with the base address, the call guide, the model catalogue, usage and health. The CLI serves it beside the API; in code, `createConsole(gateway)` reads this section.',
    defaultText: 'off',
  },
  'console.path': { text: 'Where the console is mounted.', default: '/console' },
  'console.adminTokens': {
    text: 'Tokens that sign in as an admin (every key; create, edit, revoke): at least 16 printable characters, or `sha256:` and the hex SHA-256 of one. Use `${CONSOLE_ADMIN_TOKEN}`, never a token in the file.',
    defaultText: 'none',
  },
  'console.viewerTokens': {
    text: 'Tokens that sign in as a viewer: every key, usage and health, read-only.',
    defaultText: 'none',
  },
  'console.keyLogin': {
    text: "Let key holders sign in with their own `sk-` key: they see that key's usage, limits, guide and models, never another key or the organisation.",
    default: false,
  },
  'console.publicBaseUrl': {
    text: 'The base address the console shows and fills into the call guide, such as `https://llm.example.com`.',
    defaultText: "the request's origin plus `basePath`",
  },
  'console.sessionSecret': {
    text: 'The secret sign-in cookies are signed with (32 characters or more). Give every instance behind one address the same one.',
    defaultText: 'random per process: a restart signs everyone out',
  },
  'console.sessionTtlMinutes': { text: 'How long a sign-in lasts.', default: 480 },
  'console.organisation':
    "The organisation's spend, shown to admins and viewers beside the keys: against a budget, or a prepaid balance.",
  'console.organisation.budgetUsd': {
    text: 'A budget in USD the organisation spend is shown against.',
    defaultText: 'none',
  },
  'console.organisation.budgetPer': {
    text: 'The period of `budgetUsd`: `day` or `month` (UTC).',
    default: 'month',
  },
  'console.organisation.balance':
    'A prepaid balance: `usd` as of the start of `since` (YYYY-MM-DD, UTC); what is left is it minus the spend since.',
  'console.organisation.balance.usd': 'The balance in USD on the day `since` began.',
  'console.organisation.balance.since': 'The UTC day the balance was read, as YYYY-MM-DD.',
}
