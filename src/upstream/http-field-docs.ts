import type { FieldDoc } from '../internal/field-doc'

/**
 * The descriptions of the fields every HTTP upstream kind shares, by their path inside an upstream
 * entry. Only the config reference generator reads them (through `config/field-docs-groups.ts`).
 */
export const httpEntryFieldDocs: Readonly<Record<string, string | FieldDoc>> = {
  id: {
    text: 'The upstream id in logs, events and `health()`.',
    defaultText: '<group id>#<index>',
  },
  baseUrl:
    "The upstream's base URL, as its SDK takes it: OpenAI's includes `/v1` (`https://api.openai.com/v1`); Anthropic's and Gemini's are the bare host (`https://api.anthropic.com`). Required, except for `vertex` (default: the location's host) and `bedrock` (default: the region's endpoint).",
  apiKey: {
    text: 'The key sent upstream: as a bearer token (`openai`), `x-api-key` (`anthropic`) or `x-goog-api-key` (`gemini`); a Bedrock API key, as a bearer token (`bedrock`). Usually `"${NAME}"`.',
    defaultText: 'none',
  },
  headers: {
    text: 'Headers sent on every call to this upstream (an organisation id).',
    defaultText: 'none',
  },
  weight: {
    text: 'Its share of the calls, by weight among the upstreams fit to be tried.',
    default: 1,
  },
  maxConcurrent: {
    text: 'Calls it is given at once (a stream until it ends); past it another upstream is picked, or 503 (529 on Anthropic routes) at once.',
    defaultText: 'none',
  },
  priority: {
    text: 'Its priority tier within the group, lower first: a call goes to the lowest tier with an upstream able to take it (closed circuit, under `maxConcurrent`, a usable key), and fails over to the next tier only once that tier is tried or refuses. Committed capacity at 0, pay-as-you-go at 1.',
    default: 0,
  },
  priceMultiplier: {
    text: "What this upstream charges × the catalogue's price of the group's models (0.7: a contract 30% under list); after a cloud's regional surcharge. It counts in the list price of the calls it answers, and `balancing: \"cost\"` ranks upstreams by it.",
    default: 1,
  },
  apiKeys:
    'A pool of keys instead of `apiKey`, rotated per call (see `keyPool`); a key the upstream refuses leaves rotation for a while.',
}
