import type { CatalogueRow, ModelPrice } from '../../pricing/model-price'

/**
 * Anthropic list prices, USD per 1M tokens. A 5-minute cache write costs 1.25× input, an hour's
 * 2×, a cache read 0.1× (0.05× on the 5.5 models, 0.025× on Fable 5.1), as Anthropic's pricing
 * page states. Patterns take the alias, dated snapshots (`-20250929`), `-latest`, and the dotted
 * spelling; Bedrock and Vertex ids are normalised before matching.
 *
 * @see https://platform.claude.com/docs/en/about-claude/pricing
 */
const page = 'https://platform.claude.com/docs/en/about-claude/pricing'
const olderPage = 'https://docs.anthropic.com/en/docs/about-claude/pricing'

/** A price from its input, output and cache-read prices, the writes by Anthropic's multipliers. */
function claude(input: number, output: number, cachedInput: number): ModelPrice {
  return {
    input,
    output,
    cachedInput,
    cacheWrite: round6(input * 1.25),
    cacheWrite1h: round6(input * 2),
  }
}

function round6(usd: number): number {
  return Math.round(usd * 1_000_000) / 1_000_000
}

/** The patterns of one model id: alias, snapshots, `-latest`, and `4.5` for `4-5`. */
function names(...ids: string[]): string[] {
  return ids.flatMap((id) => {
    const dotted = id.replace(/(\d)-(\d)(?=-|$)/, '$1.$2')
    return [
      ...new Set([id, `${id}-2*`, `${id}-latest`, dotted, `${dotted}-2*`, `${dotted}-latest`]),
    ]
  })
}

/** The rows, built when a catalogue is first made (not at import). */
export function anthropicPriceRows(): readonly CatalogueRow[] {
  return [
    {
      model: 'claude-fable-5-1',
      match: names('claude-fable-5-1', 'claude-mythos-5-1'),
      price: claude(10, 50, 0.25),
      source: page,
      asOf: '2026-11-26',
    },
    {
      model: 'claude-fable-5',
      match: names('claude-fable-5', 'claude-mythos-5'),
      price: claude(10, 50, 1),
      source: page,
      asOf: '2026-11-26',
    },
    {
      // Input and output from Anthropic's model comparison; the cache read (0.05×) from a third
      // party quoting the pricing page, the writes by the multipliers.
      model: 'claude-opus-5-5',
      match: names('claude-opus-5-5'),
      price: claude(4, 20, 0.2),
      source: 'https://platform.claude.com/docs/about-claude/models/whats-new-opus-5',
      asOf: '2026-11-26',
    },
    {
      model: 'claude-opus-5',
      match: names('claude-opus-5'),
      price: claude(5, 25, 0.5),
      source: page,
      asOf: '2026-11-26',
    },
    {
      model: 'claude-opus-4-5',
      match: names('claude-opus-4-5', 'claude-opus-4-6', 'claude-opus-4-7', 'claude-opus-4-8'),
      price: claude(5, 25, 0.5),
      source: page,
      asOf: '2026-11-26',
    },
    {
      model: 'claude-opus-4-1',
      match: [...names('claude-opus-4-1', 'claude-opus-4', 'claude-opus-4-0'), 'claude-4-opus*'],
      price: claude(15, 75, 1.5),
      source: page,
      asOf: '2026-11-26',
    },
    {
      model: 'claude-3-opus',
      match: names('claude-3-opus'),
      price: claude(15, 75, 1.5),
      source: olderPage,
      asOf: '2026-11-26',
    },
    {
      // Anthropic cut the 5.5 cache read from $0.20 to $0.10 on 2026-10-07 (third parties checking
      // the live page; the stored copy of Anthropic's model page still shows $0.20).
      model: 'claude-sonnet-5-5',
      match: names('claude-sonnet-5-5'),
      price: claude(2, 10, 0.1),
      source: 'https://github.com/kurofune/claudit/releases/tag/v1.9.2',
      asOf: '2026-10-24',
    },
    {
      model: 'claude-sonnet-5',
      match: names('claude-sonnet-5'),
      price: claude(2, 10, 0.2),
      source: 'https://platform.claude.com/docs/zh-CN/models/sonnet-5/overview',
      asOf: '2026-11-26',
    },
    {
      // Flat to 1M tokens (LiteLLM PR #24689); one note claims a long-context premium: unconfirmed.
      model: 'claude-sonnet-4-6',
      match: names('claude-sonnet-4-6'),
      price: claude(3, 15, 0.3),
      source: 'https://deploybase.ai/articles/claude-api-pricing',
      asOf: '2026-03-21',
    },
    {
      // Above 200K input tokens (the 1M-context beta) every token costs the long-context price.
      model: 'claude-sonnet-4-5',
      match: [...names('claude-sonnet-4-5'), 'claude-4-5-sonnet*'],
      price: {
        ...claude(3, 15, 0.3),
        tiers: [
          {
            aboveInputTokens: 200_000,
            input: 6,
            output: 22.5,
            cachedInput: 0.6,
            cacheWrite: 7.5,
            cacheWrite1h: 12,
          },
        ],
      },
      source: 'https://crazyrouter.com/en/blog/claude-sonnet-4-5-pricing',
      asOf: '2026-04-27',
    },
    {
      model: 'claude-sonnet-4',
      match: [...names('claude-sonnet-4', 'claude-sonnet-4-0'), 'claude-4-sonnet*'],
      price: {
        ...claude(3, 15, 0.3),
        tiers: [
          {
            aboveInputTokens: 200_000,
            input: 6,
            output: 22.5,
            cachedInput: 0.6,
            cacheWrite: 7.5,
            cacheWrite1h: 12,
          },
        ],
      },
      source: olderPage,
      asOf: '2026-11-26',
    },
    {
      model: 'claude-3-7-sonnet',
      match: names('claude-3-7-sonnet'),
      price: claude(3, 15, 0.3),
      source: olderPage,
      asOf: '2026-11-26',
    },
    {
      model: 'claude-3-5-sonnet',
      match: names('claude-3-5-sonnet'),
      price: claude(3, 15, 0.3),
      source: olderPage,
      asOf: '2026-11-26',
    },
    {
      // Anthropic lists it "from $0.10 / $0.50"; the two bands (a prompt over 100K tokens costs 5×)
      // and the cache prices come from third parties checking the live page.
      model: 'claude-haiku-5-5',
      match: names('claude-haiku-5-5'),
      price: {
        ...claude(0.1, 0.5, 0.01),
        tiers: [
          {
            aboveInputTokens: 100_000,
            input: 0.5,
            output: 2.5,
            cachedInput: 0.05,
            cacheWrite: 0.625,
            cacheWrite1h: 1,
          },
        ],
      },
      source: 'https://github.com/kurofune/claudit/releases/tag/v1.9.2',
      asOf: '2026-10-24',
    },
    {
      model: 'claude-haiku-4-5',
      match: names('claude-haiku-4-5'),
      price: claude(1, 5, 0.1),
      source: 'https://platform.claude.com/docs/zh-CN/models/sonnet-5/overview',
      asOf: '2026-11-26',
    },
    {
      model: 'claude-3-5-haiku',
      match: names('claude-3-5-haiku'),
      price: { input: 0.8, output: 4, cachedInput: 0.08, cacheWrite: 1, cacheWrite1h: 1.6 },
      source: olderPage,
      asOf: '2026-11-26',
    },
    {
      model: 'claude-3-haiku',
      match: names('claude-3-haiku'),
      price: { input: 0.25, output: 1.25, cachedInput: 0.03, cacheWrite: 0.3, cacheWrite1h: 0.5 },
      source: olderPage,
      asOf: '2026-11-26',
    },
  ]
}
