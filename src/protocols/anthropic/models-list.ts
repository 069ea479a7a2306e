import { jsonAnswer, type GatewayAnswer } from '../../http/gateway-answer'
import { pricingField, type ListedModel } from '../../pricing/listed-price'

/**
 * Anthropic's model list, with its cursor paging (`limit` 1–1000, default 20; `after_id`;
 * `before_id`), which the SDK walks while `has_more` is true.
 *
 * Each entry carries the model profile's limits as Anthropic names them: `max_input_tokens` (the
 * context window) and `max_tokens` (the most `max_tokens` may be), `null` when unknown; a priced
 * model also its `pricing` for the calling key (`listedPricing`), which the SDK ignores.
 *
 * @see https://docs.anthropic.com/en/api/models-list
 */
export function renderAnthropicModelList(
  models: readonly ListedModel[],
  query: URLSearchParams,
  createdAt: string,
): GatewayAnswer {
  const requested = Number(query.get('limit') ?? 20)
  const limit = Number.isInteger(requested) ? Math.min(Math.max(requested, 1), 1000) : 20
  const afterId = query.get('after_id')
  const beforeId = query.get('before_id')
  let start = 0
  let end = models.length
  if (afterId !== null) start = models.findIndex((model) => model.id === afterId) + 1
  if (beforeId !== null) {
    const before = models.findIndex((model) => model.id === beforeId)
    end = before < 0 ? models.length : before
  }
  const page =
    beforeId !== null && afterId === null
      ? models.slice(Math.max(start, end - limit), end)
      : models.slice(start, Math.min(end, start + limit))
  const hasMore = beforeId !== null && afterId === null ? end - limit > start : start + limit < end
  return jsonAnswer({
    data: page.map((model) => ({
      type: 'model',
      id: model.id,
      display_name: model.id,
      created_at: createdAt,
      max_input_tokens: model.profile.contextWindow ?? null,
      max_tokens: model.profile.maxOutputTokens ?? null,
      ...pricingField(model.pricing, 'snake'),
    })),
    has_more: hasMore,
    first_id: page[0]?.id ?? null,
    last_id: page.at(-1)?.id ?? null,
  })
}
