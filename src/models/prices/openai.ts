import type { CatalogueRow, ModelPrice } from '../../pricing/model-price'

/**
 * OpenAI list prices, USD per 1M tokens (Standard processing). `prompt_tokens` includes cached
 * tokens and `completion_tokens` reasoning ones; OpenAI bills no cache write apart, except GPT-5.6
 * (1.25× input). GPT-5.4 and GPT-5.5 prompts over 272K input tokens cost 2× input and 1.5× output
 * for every token of the request.
 *
 * OpenAI's own pricing page was not among the sources at hand: each row names the copy it was
 * read from (a page quoting OpenAI's, or LiteLLM's price file as of 2026-07-24).
 *
 * @see https://developers.openai.com/api/docs/pricing
 */
const quoted = 'https://tokenmix.ai/blog/openai-api-cost-2026-gpt-5-5-5-4-nano-batch'
const litellm =
  'https://github.com/Wei-Shaw/model-price-repo/blob/f9ff147/model_prices_and_context_window.json'
/** A page quoting OpenAI's embedding prices (standard tier), verified against OpenAI's. */
const embeddingPrices = 'https://embeddingcost.com/openai'

/** An OpenAI model id with its dated snapshots (`gpt-4o-2024-08-06`). */
function names(...ids: string[]): string[] {
  return ids.flatMap((id) => [id, `${id}-2*`])
}

function price(input: number, cachedInput: number | undefined, output: number): ModelPrice {
  return cachedInput === undefined ? { input, output } : { input, output, cachedInput }
}

/** The >272K tier of GPT-5.4 and GPT-5.5: 2× input (and cached input), 1.5× output. */
function longContext(base: ModelPrice): ModelPrice {
  return {
    ...base,
    tiers: [
      {
        aboveInputTokens: 272_000,
        input: base.input * 2,
        output: base.output * 1.5,
        ...(base.cachedInput === undefined ? {} : { cachedInput: base.cachedInput * 2 }),
      },
    ],
  }
}

/** The rows, built when a catalogue is first made (not at import). */
export function openaiPriceRows(): readonly CatalogueRow[] {
  return [
    {
      model: 'gpt-5.5',
      match: names('gpt-5.5'),
      price: longContext(price(5, 0.5, 30)),
      source: quoted,
      asOf: '2026-06-04',
    },
    {
      model: 'gpt-5.5-pro',
      match: names('gpt-5.5-pro'),
      price: longContext(price(30, undefined, 180)),
      source: 'https://www.morphllm.com/openai-api-pricing',
      asOf: '2026-06-01',
    },
    {
      model: 'gpt-5.4',
      match: names('gpt-5.4'),
      price: longContext(price(2.5, 0.25, 15)),
      source: quoted,
      asOf: '2026-06-04',
    },
    {
      model: 'gpt-5.4-pro',
      match: names('gpt-5.4-pro'),
      price: longContext(price(30, undefined, 180)),
      source: 'https://www.morphllm.com/openai-api-pricing',
      asOf: '2026-06-01',
    },
    {
      model: 'gpt-5.4-mini',
      match: names('gpt-5.4-mini'),
      price: price(0.75, 0.075, 4.5),
      source: quoted,
      asOf: '2026-06-04',
    },
    {
      model: 'gpt-5.4-nano',
      match: names('gpt-5.4-nano'),
      price: price(0.2, 0.02, 1.25),
      source: quoted,
      asOf: '2026-06-04',
    },
    {
      // GPT-5.6 (and Sol): a cache write of 1.25× input, often reported as 0 (sub2api #4712).
      model: 'gpt-5.6',
      match: names('gpt-5.6', 'gpt-5.6-sol'),
      price: {
        input: 5,
        output: 30,
        cachedInput: 0.5,
        cacheWrite: 6.25,
        tiers: [
          { aboveInputTokens: 272_000, input: 10, output: 45, cachedInput: 1, cacheWrite: 12.5 },
        ],
      },
      source: 'https://github.com/Wei-Shaw/model-price-repo/blob/f9ff147/config.json',
      asOf: '2026-07-24',
    },
    {
      // The vendor-confirmed fixture of the research (834 uncached, 9,984 cached, 8 output =
      // $0.0018804, sub2api #4712) prices at exactly these figures.
      model: 'gpt-5.6-luna',
      match: names('gpt-5.6-luna'),
      price: { input: 1, output: 6, cachedInput: 0.1, cacheWrite: 1.25 },
      source: 'https://github.com/Wei-Shaw/sub2api/issues/4712',
      asOf: '2026-07-24',
    },
    {
      model: 'gpt-5.2',
      match: names('gpt-5.2', 'gpt-5.2-codex', 'gpt-5.3-codex'),
      price: price(1.75, 0.175, 14),
      source: 'https://github.com/github/docs/blob/main/data/tables/copilot/models-and-pricing.yml',
      asOf: '2026-11-26',
    },
    {
      model: 'gpt-5.2-pro',
      match: names('gpt-5.2-pro'),
      price: price(21, undefined, 168),
      source: litellm,
      asOf: '2025-12-18',
    },
    {
      model: 'gpt-5',
      match: names(
        'gpt-5',
        'gpt-5.1',
        'gpt-5-codex',
        'gpt-5.1-codex',
        'gpt-5.1-codex-max',
        'gpt-5-chat-latest',
        'gpt-5.1-chat-latest',
      ),
      price: price(1.25, 0.125, 10),
      source: litellm,
      asOf: '2026-07-24',
    },
    {
      model: 'gpt-5-mini',
      match: names('gpt-5-mini', 'gpt-5.1-codex-mini'),
      price: price(0.25, 0.025, 2),
      source: litellm,
      asOf: '2026-07-24',
    },
    {
      model: 'gpt-5-nano',
      match: names('gpt-5-nano'),
      price: price(0.05, 0.005, 0.4),
      source: litellm,
      asOf: '2026-07-24',
    },
    {
      model: 'gpt-5-pro',
      match: names('gpt-5-pro'),
      price: price(15, undefined, 120),
      source: litellm,
      asOf: '2025-12-18',
    },
    {
      model: 'gpt-4.1',
      match: names('gpt-4.1'),
      price: price(2, 0.5, 8),
      source: 'https://github.com/github/docs/blob/main/data/tables/copilot/models-and-pricing.yml',
      asOf: '2026-11-26',
    },
    {
      model: 'gpt-4.1-mini',
      match: names('gpt-4.1-mini'),
      price: price(0.4, 0.1, 1.6),
      source: litellm,
      asOf: '2026-07-24',
    },
    {
      model: 'gpt-4.1-nano',
      match: names('gpt-4.1-nano'),
      price: price(0.1, 0.025, 0.4),
      source: litellm,
      asOf: '2026-07-24',
    },
    {
      model: 'gpt-4o',
      match: [...names('gpt-4o'), 'chatgpt-4o-latest'],
      price: price(2.5, 1.25, 10),
      source: litellm,
      asOf: '2026-07-24',
    },
    {
      model: 'gpt-4o-mini',
      match: names('gpt-4o-mini'),
      price: price(0.15, 0.075, 0.6),
      source: litellm,
      asOf: '2026-07-24',
    },
    {
      model: 'o3',
      match: names('o3'),
      price: price(2, 0.5, 8),
      source: litellm,
      asOf: '2026-07-24',
    },
    {
      model: 'o3-pro',
      match: names('o3-pro'),
      price: price(20, undefined, 80),
      source: litellm,
      asOf: '2026-07-24',
    },
    {
      model: 'o4-mini',
      match: names('o4-mini'),
      price: price(1.1, 0.275, 4.4),
      source: litellm,
      asOf: '2026-07-24',
    },
    {
      model: 'o1',
      match: names('o1'),
      price: price(15, 7.5, 60),
      source: 'https://docs.rs/crate/openai-models/0.1.1/source/src/lib.rs',
      asOf: '2026-11-26',
    },
    // Embedding models bill input only: an embedding has no output tokens.
    {
      model: 'text-embedding-3-small',
      match: ['text-embedding-3-small'],
      price: price(0.02, undefined, 0),
      source: embeddingPrices,
      asOf: '2026-11-27',
    },
    {
      model: 'text-embedding-3-large',
      match: ['text-embedding-3-large'],
      price: price(0.13, undefined, 0),
      source: embeddingPrices,
      asOf: '2026-11-27',
    },
    {
      model: 'text-embedding-ada-002',
      match: ['text-embedding-ada-002'],
      price: price(0.1, undefined, 0),
      source: embeddingPrices,
      asOf: '2026-11-27',
    },
  ]
}
