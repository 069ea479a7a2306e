import type { CatalogueRow, ModelPrice } from '../../pricing/model-price'

/**
 * AWS Bedrock on-demand list prices of the models served over the Converse API, USD per 1M
 * tokens, US East (N. Virginia); cross-region inference profiles (`us.`, `global.`) bill the
 * same. Cached input is Nova's prompt-cache read price (Bedrock bills no cache write for Nova).
 * DeepSeek R1's reasoning is billed as output.
 *
 * Read from AWS's pricing page on 2026-11-28 and cross-checked against the per-model tables of
 * public Bedrock clients (models.dev-derived `bedrock-converse-stream` entries, Roo Code's
 * Bedrock table). `qwen3-32b` is also the open model's own name: a self-hosted Qwen3-32B on an
 * `openai` group matches this row too; mark it unpriced there with `"price": false`.
 *
 * @see https://aws.amazon.com/bedrock/pricing/
 */
const page = 'https://aws.amazon.com/bedrock/pricing/'
const asOf = '2026-11-28'

function price(input: number, output: number, cachedInput?: number): ModelPrice {
  return cachedInput === undefined ? { input, output } : { input, output, cachedInput }
}

function row(model: string, match: readonly string[], value: ModelPrice): CatalogueRow {
  return { model, match, price: value, source: page, asOf }
}

/** The rows, built when a catalogue is first made (not at import). */
export function bedrockPriceRows(): readonly CatalogueRow[] {
  return [
    row('amazon.nova-micro-v1:0', ['nova-micro'], price(0.035, 0.14, 0.00875)),
    row('amazon.nova-lite-v1:0', ['nova-lite'], price(0.06, 0.24, 0.015)),
    row('amazon.nova-pro-v1:0', ['nova-pro'], price(0.8, 3.2, 0.2)),
    row('amazon.nova-premier-v1:0', ['nova-premier'], price(2.5, 12.5)),
    row('amazon.nova-2-lite-v1:0', ['nova-2-lite'], price(0.3, 2.5, 0.075)),
    row('meta.llama3-8b-instruct-v1:0', ['llama3-8b-instruct'], price(0.3, 0.6)),
    row('meta.llama3-70b-instruct-v1:0', ['llama3-70b-instruct'], price(2.65, 3.5)),
    row('meta.llama3-1-8b-instruct-v1:0', ['llama3-1-8b-instruct'], price(0.22, 0.22)),
    row('meta.llama3-1-70b-instruct-v1:0', ['llama3-1-70b-instruct'], price(0.72, 0.72)),
    row('meta.llama3-1-405b-instruct-v1:0', ['llama3-1-405b-instruct'], price(2.4, 2.4)),
    row('meta.llama3-2-1b-instruct-v1:0', ['llama3-2-1b-instruct'], price(0.1, 0.1)),
    row('meta.llama3-2-3b-instruct-v1:0', ['llama3-2-3b-instruct'], price(0.15, 0.15)),
    row('meta.llama3-2-11b-instruct-v1:0', ['llama3-2-11b-instruct'], price(0.16, 0.16)),
    row('meta.llama3-2-90b-instruct-v1:0', ['llama3-2-90b-instruct'], price(0.72, 0.72)),
    row('meta.llama3-3-70b-instruct-v1:0', ['llama3-3-70b-instruct'], price(0.72, 0.72)),
    row('meta.llama4-scout-17b-instruct-v1:0', ['llama4-scout-17b-instruct'], price(0.17, 0.66)),
    row(
      'meta.llama4-maverick-17b-instruct-v1:0',
      ['llama4-maverick-17b-instruct'],
      price(0.24, 0.97),
    ),
    row('mistral.mistral-large-2402-v1:0', ['mistral-large-2402'], price(4, 12)),
    row('mistral.mistral-large-2407-v1:0', ['mistral-large-2407'], price(2, 6)),
    row('mistral.pixtral-large-2502-v1:0', ['pixtral-large-2502'], price(2, 6)),
    row('deepseek.r1-v1:0', ['r1'], price(1.35, 5.4)),
    row('deepseek.v3-v1:0', ['v3'], price(0.58, 1.68)),
    row('qwen.qwen3-32b-v1:0', ['qwen3-32b'], price(0.15, 0.6)),
    row('qwen.qwen3-235b-a22b-2507-v1:0', ['qwen3-235b-a22b-2507'], price(0.22, 0.88)),
    row('qwen.qwen3-coder-30b-a3b-v1:0', ['qwen3-coder-30b-a3b'], price(0.15, 0.6)),
    row('qwen.qwen3-coder-480b-a35b-v1:0', ['qwen3-coder-480b-a35b'], price(0.22, 1.8)),
  ]
}
