import type { CatalogueRow, ModelPrice } from '../../pricing/model-price'

/**
 * Google Gemini Developer API list prices, USD per 1M tokens (paid tier). Output prices include
 * thinking tokens (`thoughtsTokenCount`, which the gateway adds to the output). Pro models bill
 * every token of a request whose prompt is over 200K tokens at the long-context price. Cache
 * storage (per hour) is not per request, so not priced here.
 *
 * The input and output prices (and the Pro tiers) were checked against a verbatim transcription of
 * Google's pricing page read 2026-10-07; cached-input prices come from LiteLLM's price file.
 *
 * @see https://ai.google.dev/gemini-api/docs/pricing
 */
const transcribed =
  'https://github.com/api-evangelist/deepmind/blob/main/plans/deepmind-plans-pricing.yml'
const litellm =
  'https://github.com/Wei-Shaw/model-price-repo/blob/f9ff147/model_prices_and_context_window.json'

/** A Gemini model id with its preview and numbered snapshots, but not its variants (`-tts`). */
function names(...ids: string[]): string[] {
  return ids.flatMap((id) => [id, `${id}-0*`, `${id}-preview-0*`, `${id}-preview-1*`])
}

function price(input: number, cachedInput: number, output: number): ModelPrice {
  return { input, output, cachedInput }
}

/** The rows, built when a catalogue is first made (not at import). */
export function geminiPriceRows(): readonly CatalogueRow[] {
  return [
    {
      model: 'gemini-3.1-pro-preview',
      match: ['gemini-3.1-pro-preview', 'gemini-3.1-pro-preview-*', 'gemini-3-pro-preview'],
      price: {
        ...price(2, 0.2, 12),
        tiers: [{ aboveInputTokens: 200_000, input: 4, output: 18, cachedInput: 0.4 }],
      },
      source: transcribed,
      asOf: '2026-10-07',
    },
    {
      // $0.75 / $3.75 through 2026-12-31; Google lists $1.50 / $7.50 from 2027-01-01.
      model: 'gemini-3.8-flash',
      match: names('gemini-3.8-flash'),
      price: price(0.75, 0.075, 3.75),
      source: transcribed,
      asOf: '2026-10-07',
    },
    {
      model: 'gemini-3.5-flash',
      match: names('gemini-3.5-flash'),
      price: price(1.5, 0.15, 9),
      source: transcribed,
      asOf: '2026-10-07',
    },
    {
      model: 'gemini-3.5-flash-lite',
      match: names('gemini-3.5-flash-lite'),
      price: price(0.3, 0.03, 2.5),
      source: transcribed,
      asOf: '2026-10-07',
    },
    {
      model: 'gemini-3-flash-preview',
      match: ['gemini-3-flash-preview', 'gemini-3-flash-preview-*'],
      price: price(0.5, 0.05, 3),
      source: litellm,
      asOf: '2026-07-24',
    },
    {
      model: 'gemini-3.1-flash-lite-preview',
      match: ['gemini-3.1-flash-lite-preview', 'gemini-3.1-flash-lite-preview-*'],
      price: price(0.25, 0.025, 1.5),
      source: litellm,
      asOf: '2026-07-24',
    },
    {
      model: 'gemini-2.5-pro',
      match: names('gemini-2.5-pro'),
      price: {
        ...price(1.25, 0.125, 10),
        tiers: [{ aboveInputTokens: 200_000, input: 2.5, output: 15, cachedInput: 0.25 }],
      },
      source: transcribed,
      asOf: '2026-10-07',
    },
    {
      model: 'gemini-2.5-flash',
      match: names('gemini-2.5-flash'),
      price: price(0.3, 0.03, 2.5),
      source: transcribed,
      asOf: '2026-10-07',
    },
    {
      model: 'gemini-2.5-flash-lite',
      match: names('gemini-2.5-flash-lite'),
      price: price(0.1, 0.01, 0.4),
      source: transcribed,
      asOf: '2026-10-07',
    },
    // Embedding models bill input only (text): an embedding has no output tokens.
    {
      model: 'gemini-embedding-001',
      match: ['gemini-embedding-001'],
      price: { input: 0.15, output: 0 },
      source: 'https://embeddingcost.com/google',
      asOf: '2026-11-27',
    },
    {
      model: 'gemini-embedding-2',
      match: ['gemini-embedding-2', 'gemini-embedding-2-preview'],
      price: { input: 0.2, output: 0 },
      source: 'https://tokencost.app/blog/gemini-embedding-2-pricing',
      asOf: '2026-11-27',
    },
  ]
}
