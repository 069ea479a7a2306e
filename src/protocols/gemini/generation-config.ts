import type { ChatRequest } from '../../canonical/types'
import { GatewayError } from '../../errors'
import { isJsonObject } from '../../internal/json'
import { openApiToJsonSchema } from './openapi-schema'
import type { GeminiGenerateContentRequest } from './request-schema'
import { toGeminiJsonSchema } from './schema-sanitize'

type GenerationConfig = NonNullable<GeminiGenerateContentRequest['generationConfig']>

/**
 * Thinking budgets for reasoning efforts (RSN-03, pinned). Model-specific ranges (2.5 Pro cannot
 * go below 128 nor turn thinking off; Flash stops at 24576) are the upstream's to enforce: the
 * codec does not know the model family. Gemini 3 still takes `thinkingBudget` for compatibility.
 */
const budgetByEffort = {
  minimal: 512,
  low: 1024,
  medium: 8192,
  high: 24576,
  xhigh: 24576,
  max: 24576,
} as const

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
 * The `generationConfig` of a canonical request: limits and sampling (GEN-01..05), JSON output as
 * the mime type plus a sanitised `responseJsonSchema` (JSON-04), reasoning as `thinkingConfig`
 * (RSN-03). Empty when nothing is set.
 *
 * @see https://ai.google.dev/api/generate-content#generationconfig
 */
export function geminiGenerationConfig(request: ChatRequest): Record<string, unknown> {
  const config: Record<string, unknown> = {}
  if (request.maxOutputTokens !== undefined) config['maxOutputTokens'] = request.maxOutputTokens
  if (request.temperature !== undefined) config['temperature'] = request.temperature
  if (request.topP !== undefined) config['topP'] = request.topP
  if (request.topK !== undefined) config['topK'] = request.topK
  if (request.stopSequences !== undefined && request.stopSequences.length > 0)
    config['stopSequences'] = request.stopSequences
  if (request.seed !== undefined) config['seed'] = request.seed
  if (request.responseFormat?.type === 'json') {
    config['responseMimeType'] = 'application/json'
    if (request.responseFormat.schema !== undefined)
      config['responseJsonSchema'] = toGeminiJsonSchema(request.responseFormat.schema)
  }
  const thinking = thinkingConfig(request.reasoning)
  if (thinking !== undefined) config['thinkingConfig'] = thinking
  return config
}

/**
 * `thinkingConfig` → canonical reasoning (RSN-04): budget 0 turns thinking off, -1 (dynamic) is
 * thinking at the upstream's default, a positive budget is kept; `thinkingLevel` is an effort.
 * `includeThoughts` alone asks to see thoughts, so thinking is turned on (pinned).
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
  return config.includeThoughts === true ? { enabled: true } : undefined
}

/** Reasoning → `thinkingConfig` (RSN-03): thoughts are asked for whenever thinking is on. */
function thinkingConfig(reasoning: ChatRequest['reasoning']): Record<string, unknown> | undefined {
  if (reasoning === undefined) return undefined
  if (reasoning.effort === 'none') return { thinkingBudget: 0 }
  if (reasoning.budgetTokens !== undefined)
    return { thinkingBudget: reasoning.budgetTokens, includeThoughts: true }
  if (reasoning.effort !== undefined)
    return { thinkingBudget: budgetByEffort[reasoning.effort], includeThoughts: true }
  // -1 is Gemini's dynamic budget: thinking on, the model decides how much.
  return reasoning.enabled === true ? { thinkingBudget: -1, includeThoughts: true } : undefined
}
