import type { ChatRequest } from '../../canonical/types'
import { GatewayError } from '../../errors'
import { isJsonObject } from '../../internal/json'
import { cappedOutputLimit, cappedTemperature, dropped } from '../../models/fit-request'
import { lenientTarget, type ModelTarget } from '../../models/model-target'
import { openApiToJsonSchema } from './openapi-schema'
import type { GeminiGenerateContentRequest } from './request-schema'
import { toGeminiJsonSchema } from './schema-sanitize'
import { geminiThinkingConfig } from './thinking-config'

type GenerationConfig = NonNullable<GeminiGenerateContentRequest['generationConfig']>

/**
 * Copies a `generationConfig` onto a canonical request (GEN-01..06, JSON-05, RSN-04).
 * `candidateCount` above 1 is refused with 400: the gateway answers with one candidate (GEN-06,
 * pinned). Penalties have no canonical field and are dropped.
 *
 * @see https://ai.google.dev/api/generate-content#generationconfig
 */
export function applyGeminiGenerationConfig(request: ChatRequest, config: GenerationConfig): void {
  if (typeof config.candidateCount === 'number' && config.candidateCount > 1) {
    throw new GatewayError(
      'invalid_request',
      'The gateway answers with one candidate: `candidateCount` must be 1.',
      { param: 'generationConfig.candidateCount' },
    )
  }
  if (typeof config.maxOutputTokens === 'number') request.maxOutputTokens = config.maxOutputTokens
  if (typeof config.temperature === 'number') request.temperature = config.temperature
  if (typeof config.topP === 'number') request.topP = config.topP
  if (typeof config.topK === 'number') request.topK = config.topK
  if (typeof config.seed === 'number') request.seed = config.seed
  if (Array.isArray(config.stopSequences) && config.stopSequences.length > 0)
    request.stopSequences = config.stopSequences
  if (config.responseMimeType === 'application/json') {
    // JSON-05: a schema makes structured output, no schema plain JSON mode.
    const schema = isJsonObject(config.responseJsonSchema)
      ? config.responseJsonSchema
      : isJsonObject(config.responseSchema)
        ? openApiToJsonSchema(config.responseSchema)
        : undefined
    request.responseFormat = { type: 'json', ...(schema === undefined ? {} : { schema }) }
  } else if (config.responseMimeType === 'text/x.enum') {
    // An enum answer is bare text; no other protocol can promise that (JSON-05, pinned: 400).
    throw new GatewayError(
      'invalid_request',
      '`text/x.enum` output is available only from Gemini upstreams.',
      { param: 'generationConfig.responseMimeType' },
    )
  }
  const reasoning = decodeThinking(config.thinkingConfig)
  if (reasoning !== undefined) request.reasoning = reasoning
}

/**
 * The `generationConfig` of a canonical request, fitted to the target model: limits capped at its
 * maximum and sampling (GEN-01..05; dropped where the model ignores it), JSON output as the mime
 * type plus a sanitised `responseJsonSchema` (JSON-04), reasoning as `thinkingConfig` in the
 * model's own form (`geminiThinkingConfig`, RSN-03). Empty when nothing is set.
 *
 * @see https://ai.google.dev/api/generate-content#generationconfig
 */
export function geminiGenerationConfig(
  request: ChatRequest,
  target: ModelTarget = lenientTarget(),
): Record<string, unknown> {
  const { profile } = target
  const config: Record<string, unknown> = {}
  const limit = cappedOutputLimit(
    request.maxOutputTokens,
    target,
    'generationConfig.maxOutputTokens',
  )
  if (limit !== undefined) config['maxOutputTokens'] = limit
  const sampling = [
    ['temperature', request.temperature],
    ['topP', request.topP],
    ['topK', request.topK],
  ] as const
  for (const [name, value] of sampling) {
    if (value === undefined) continue
    if (profile.sampling === 'none')
      dropped(target, `generationConfig.${name}`, value, `${profile.family} ignores ${name}`)
    else
      config[name] =
        name === 'temperature'
          ? cappedTemperature(value, target, { field: 'generationConfig.temperature' })
          : value
  }
  if (request.stopSequences !== undefined && request.stopSequences.length > 0)
    config['stopSequences'] = request.stopSequences
  if (request.seed !== undefined) config['seed'] = request.seed
  if (request.responseFormat?.type === 'json') {
    config['responseMimeType'] = 'application/json'
    const schema = request.responseFormat.schema
    if (schema !== undefined && profile.structuredOutput === 'schema')
      config['responseJsonSchema'] = toGeminiJsonSchema(schema)
  }
  const thinking = geminiThinkingConfig(request.reasoning, target)
  if (thinking !== undefined) config['thinkingConfig'] = thinking
  return config
}

/**
 * `thinkingConfig` → canonical reasoning (RSN-04): budget 0 turns thinking off, -1 (dynamic) is
 * thinking at the model's choosing, a positive budget is kept; `thinkingLevel` is an effort.
 * `includeThoughts` alone asks to *see* thoughts, not to pay for them (Gemini CLI sends it on
 * every request), so it turns nothing on.
 */
function decodeThinking(config: GenerationConfig['thinkingConfig']): ChatRequest['reasoning'] {
  if (config === undefined || config === null) return undefined
  const budget = config.thinkingBudget
  if (budget === 0) return { effort: 'none' }
  if (typeof budget === 'number' && budget > 0) return { enabled: true, budgetTokens: budget }
  if (typeof budget === 'number') return { enabled: true }
  const level = config.thinkingLevel?.toLowerCase()
  if (level === 'minimal' || level === 'low' || level === 'medium' || level === 'high')
    return { enabled: true, effort: level }
  return undefined
}
