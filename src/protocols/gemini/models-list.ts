import { jsonAnswer, type GatewayAnswer } from '../../http/gateway-answer'
import { pricingField, type ListedModel } from '../../pricing/listed-price'

/**
 * A Gemini `Model` resource for a call name, with what the model profile knows:
 * `inputTokenLimit` (the context window, as Google lists it), `outputTokenLimit` and `thinking`.
 *
 * @see https://ai.google.dev/api/models#Model
 */
export function geminiModel(model: ListedModel) {
  const { profile } = model
  const kind = profile.reasoning.kind
  return {
    name: `models/${model.id}`,
    baseModelId: model.id,
    version: '001',
    displayName: model.id,
    description: `Served by group ${model.groupId}.`,
    supportedGenerationMethods: supportedMethods(model),
    ...(profile.contextWindow === undefined ? {} : { inputTokenLimit: profile.contextWindow }),
    ...(profile.maxOutputTokens === undefined ? {} : { outputTokenLimit: profile.maxOutputTokens }),
    ...(kind === 'any' ? {} : { thinking: kind !== 'none' }),
    // An extension field: the price the calling key is charged, which the SDK ignores.
    ...pricingField(model.pricing, 'camel'),
  }
}

/**
 * What a model answers, as Google lists it: an embedding model (its profile says so) embeds, on
 * an OpenAI or Gemini group; any other generates. countTokens exists where the group can count:
 * Gemini and Anthropic groups.
 */
function supportedMethods(model: ListedModel): string[] {
  if (model.profile.embedding !== undefined && model.protocol !== 'anthropic') {
    return ['embedContent', 'batchEmbedContents']
  }
  return model.protocol === 'openai'
    ? ['generateContent', 'streamGenerateContent']
    : ['generateContent', 'streamGenerateContent', 'countTokens']
}

/**
 * Gemini's model list, paged by `pageSize` (default 50, at most 1000) and an opaque `pageToken`.
 * Token limits and thinking come from the model profiles.
 *
 * @see https://ai.google.dev/api/models#method:-models.list
 */
export function renderGeminiModelList(
  models: readonly ListedModel[],
  query: URLSearchParams,
): GatewayAnswer {
  const requested = Number(query.get('pageSize') ?? 50)
  const pageSize = Number.isInteger(requested) && requested > 0 ? Math.min(requested, 1000) : 50
  const start = decodePageToken(query.get('pageToken'))
  const page = models.slice(start, start + pageSize)
  const next = start + pageSize
  return jsonAnswer({
    models: page.map(geminiModel),
    ...(next < models.length ? { nextPageToken: encodePageToken(next) } : {}),
  })
}

function encodePageToken(offset: number): string {
  return btoa(`offset:${offset}`).replaceAll('=', '')
}

function decodePageToken(token: string | null): number {
  if (token === null || token === '') return 0
  try {
    const match = /^offset:(\d+)$/.exec(atob(token))
    return match ? Number(match[1]) : 0
  } catch {
    return 0
  }
}
