import { codeOnly, type FieldDoc } from './field-doc'

/** The price fields, as one model entry's `price` and each `prices` entry take them. */
function priceDocs(prefix: string): Record<string, string | FieldDoc> {
  return {
    [`${prefix}.input`]: 'USD per 1M uncached input tokens; at most 6 decimals.',
    [`${prefix}.output`]: 'USD per 1M output tokens, reasoning included.',
    [`${prefix}.cachedInput`]: {
      text: 'USD per 1M input tokens read from the prompt cache.',
      defaultText: '`input`',
    },
    [`${prefix}.cacheWrite`]: {
      text: "USD per 1M input tokens written to the prompt cache for 5 minutes (Anthropic), or OpenAI's cache writes.",
      defaultText: '`input`',
    },
    [`${prefix}.cacheWrite1h`]: {
      text: 'USD per 1M input tokens written to the prompt cache for an hour (Anthropic).',
      defaultText: '`cacheWrite`',
    },
    [`${prefix}.perRequest`]: {
      text: 'USD per request, on top of the tokens.',
      defaultText: 'none',
    },
    [`${prefix}.tiers`]: {
      text: "Long-context tiers, by ascending threshold: once a request's input passes one, every token of it costs the tier's price.",
      defaultText: 'none',
    },
    [`${prefix}.tiers[].aboveInputTokens`]:
      'The threshold: a request whose input (uncached, cached and written together) is above it is priced at this tier.',
    [`${prefix}.tiers[].input`]: 'USD per 1M uncached input tokens at this tier.',
    [`${prefix}.tiers[].output`]: 'USD per 1M output tokens at this tier.',
    [`${prefix}.tiers[].cachedInput`]: {
      text: 'USD per 1M cached input tokens at this tier.',
      defaultText: "the base price × the tier's input / the base input",
    },
    [`${prefix}.tiers[].cacheWrite`]: {
      text: 'USD per 1M 5-minute cache writes at this tier.',
      defaultText: "the base price × the tier's input / the base input",
    },
    [`${prefix}.tiers[].cacheWrite1h`]: {
      text: 'USD per 1M 1-hour cache writes at this tier.',
      defaultText: "the base price × the tier's input / the base input",
    },
    [`${prefix}.source`]: {
      text: "Where the price comes from, kept in every record it prices (a contract, a vendor's page).",
      defaultText: 'where in the config it is written',
    },
    [`${prefix}.asOf`]: { text: 'The day the price was read, `YYYY-MM-DD`.', defaultText: 'none' },
  }
}

/** A money budget's fields (`keys[].budget`, one or each of a list). */
function budgetDocs(prefix: string): Record<string, string | FieldDoc> {
  return {
    [`${prefix}.usd`]:
      'What the key may spend in the period, in USD at the prices it is charged (list × multipliers); 0 refuses every request.',
    [`${prefix}.per`]: "The period: a UTC day, a UTC month, or the key's lifetime.",
    [`${prefix}.alertAt`]: {
      text: 'A share of `usd` (0.8 = 80 %) whose crossing calls `onBudgetAlert`, once per period.',
      defaultText: 'none',
    },
  }
}

/** The descriptions of prices, multipliers and money budgets (see `field-docs.ts`). */
export const spendFieldDocs: Readonly<Record<string, string | FieldDoc>> = {
  prices: {
    text: 'Prices by upstream-model pattern (`*` any characters, matched as model profiles are), laid over the built-in catalogue field by field; `false` leaves the models it matches unpriced. See docs/spend-and-budgets.md.',
    defaultText: 'none',
  },
  builtInPrices:
    'Start from the built-in price catalogue (current list prices of the OpenAI, Anthropic and Google models the profiles know); `false` starts it empty.',
  unpricedModels:
    'Whether a key with a money budget may call a model without a price (its spend could not be counted): `refuse` answers 403, `allow` lets it through unpriced.',
  onBudgetAlert: codeOnly(
    '(alert: BudgetAlert) => void',
    "Called once per period when a key's spend crosses a budget's `alertAt`; the CLI logs a line.",
    'none',
  ),
  'groups[].priceMultiplier': {
    text: "× the list price of this group's models: what keys are charged (a resale margin or a discount), at most 6 decimals.",
    default: 1,
  },
  'groups[].models[].price': {
    text: "This entry's price, laid field by field over what the catalogue and `prices` give its upstream model (a whole price for a model they do not know); `false` leaves it unpriced.",
    defaultText: "the catalogue's",
  },
  ...priceDocs('groups[].models[].price'),
  'keys[].budget': {
    text: 'Budgets in money, one or a list with one per period (a day and a month together), held and settled with the token limits in one step.',
    defaultText: 'none',
  },
  ...budgetDocs('keys[].budget'),
  ...budgetDocs('keys[].budget[]'),
  'keys[].priceMultiplier': {
    text: "× the price of this key's requests, after the group's multiplier.",
    default: 1,
  },
}
