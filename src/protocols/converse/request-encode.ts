import { jsonInstruction } from '../../canonical/json-instruction'
import type { ChatRequest } from '../../canonical/types'
import {
  cappedOutputLimit,
  cappedTemperature,
  checkModelInput,
  dropped,
} from '../../models/fit-request'
import { lenientTarget, type ModelTarget } from '../../models/model-target'
import type { ModelProfile } from '../../models/profile'
import {
  converseTurn,
  textBlocks,
  type Block,
  type ContentOptions,
  type Turn,
} from './request-content'
import { converseReasoningFields } from './reasoning-fields'
import { converseToolConfig } from './tool-config'

/**
 * Canonical form → a Converse request body (the model goes in the URL, the stream in the
 * operation: neither is in the body), fitted to the target model's profile.
 *
 * - System text, wherever it stood, goes to `system` in order (SYS-01, SYS-02: hoisted).
 * - Consecutive turns of one role merge, tool results first in a user turn (ROLE-01, TOOL-H-04);
 *   blank text is dropped everywhere (Converse refuses it), and a turn left empty goes.
 * - A conversation that starts with the assistant gets a minimal user turn first: Converse
 *   requires the first message to be the user's (ROLE-05), noted.
 * - A trailing assistant turn (prefill) loses its trailing whitespace (ROLE-04).
 * - Images and documents go as bytes with their format; a URL is refused with 400.
 * - Reasoning goes back only as a Converse upstream wrote it, signed or redacted (TOOL-H-10).
 * - `cache_control` marks become `cachePoint` blocks for models with prompt caching (Nova,
 *   Claude); for other models they are dropped, noted.
 * - `inferenceConfig`: `maxTokens` capped at the model's maximum, `temperature` within 0–1,
 *   `topP`, `stopSequences`. `top_k` goes in `additionalModelRequestFields` for Nova and Claude;
 *   for other models, and `seed` always, there is no field: dropped, noted.
 * - A JSON answer goes as an instruction in `system`: the Converse API has no answer format.
 * - Reasoning goes in `additionalModelRequestFields` as the model takes it.
 *
 * Every change made for the model is noted on `target.adjustments`.
 *
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html
 */
export function encodeConverseRequest(
  request: ChatRequest,
  target: ModelTarget = lenientTarget(),
): Record<string, unknown> {
  const { profile } = target
  checkModelInput(request, target)
  const options: ContentOptions = {
    cachePoints: takesCachePoints(profile),
    documentNames: new Set(),
  }
  noteDroppedCacheControl(request, target, options)
  const system: Block[] = []
  const turns: Turn[] = []
  for (const message of request.messages) {
    if (message.role === 'system') {
      for (const part of message.content) system.push(...textBlocks(part, options))
      continue
    }
    const turn = converseTurn(message, options)
    if (turn.content.length > 0) pushTurn(turns, turn)
  }
  if (turns[0]?.role !== 'user') {
    target.adjustments.push({
      field: 'messages[0]',
      change: 'set',
      to: 'a user turn',
      reason: 'the Converse API requires the conversation to start with a user message',
    })
    turns.unshift({ role: 'user', content: [{ text: '.' }] })
  }
  trimTrailingAssistant(turns)
  const format = request.responseFormat
  if (format?.type === 'json') system.push({ text: jsonInstruction(format) })
  const body: Record<string, unknown> = { messages: turns }
  if (system.length > 0) body['system'] = system
  const inference = inferenceConfig(request, target)
  if (Object.keys(inference).length > 0) body['inferenceConfig'] = inference
  const tools = converseToolConfig(request, turns, target)
  if (tools !== undefined) body['toolConfig'] = tools
  const additional = { ...topKField(request, target), ...converseReasoningFields(request, target) }
  if (Object.keys(additional).length > 0) body['additionalModelRequestFields'] = additional
  return body
}

/** Appends a turn, merged into the previous one of the same role (tool results first). */
function pushTurn(turns: Turn[], turn: Turn): void {
  const previous = turns.at(-1)
  if (previous?.role !== turn.role) {
    turns.push(turn)
    return
  }
  // Tool results lead the merged user turn; the sort is stable, so order is kept.
  const rank = (block: Block) => (block['toolResult'] === undefined ? 1 : 0)
  previous.content = [...previous.content, ...turn.content].sort(
    (left, right) => rank(left) - rank(right),
  )
}

/** Trailing whitespace in a final assistant (prefill) text is refused, as on Anthropic's API. */
function trimTrailingAssistant(turns: Turn[]): void {
  const last = turns.at(-1)
  if (last?.role !== 'assistant') return
  const block = last.content.at(-1)
  if (block !== undefined && typeof block['text'] === 'string')
    block['text'] = block['text'].trimEnd()
}

function inferenceConfig(request: ChatRequest, target: ModelTarget): Record<string, unknown> {
  const config: Record<string, unknown> = {}
  const limit = cappedOutputLimit(request.maxOutputTokens, target, 'inferenceConfig.maxTokens')
  if (limit !== undefined) config['maxTokens'] = limit
  const refused = target.profile.sampling === 'none'
  const reason = `${target.profile.family} refuses sampling fields`
  if (request.temperature !== undefined) {
    if (refused) dropped(target, 'inferenceConfig.temperature', request.temperature, reason)
    else
      config['temperature'] = cappedTemperature(request.temperature, target, {
        field: 'inferenceConfig.temperature',
        wireMaximum: 1,
      })
  }
  if (request.topP !== undefined) {
    if (refused) dropped(target, 'inferenceConfig.topP', request.topP, reason)
    else config['topP'] = request.topP
  }
  if (request.stopSequences !== undefined && request.stopSequences.length > 0)
    config['stopSequences'] = request.stopSequences
  if (request.seed !== undefined)
    dropped(target, 'seed', request.seed, 'the Converse API has no seed field')
  return config
}

/**
 * `top_k`, which `inferenceConfig` lacks, in the model's own field: Nova's
 * `inferenceConfig.topK`, Claude's `top_k`; dropped, noted, for the others.
 */
function topKField(request: ChatRequest, target: ModelTarget): Record<string, unknown> {
  const topK = request.topK
  if (topK === undefined) return {}
  const { family, sampling } = target.profile
  if (sampling !== 'none' && family.startsWith('nova')) return { inferenceConfig: { topK } }
  if (sampling !== 'none' && family.startsWith('claude')) return { top_k: topK }
  dropped(target, 'top_k', topK, `the Converse API has no top_k field for ${family}`)
  return {}
}

/** Prompt caching on Bedrock: Amazon Nova and Anthropic Claude models take cache points. */
function takesCachePoints(profile: ModelProfile): boolean {
  return profile.family === 'unknown' || /^(nova|claude)/.test(profile.family)
}

function noteDroppedCacheControl(
  request: ChatRequest,
  target: ModelTarget,
  options: ContentOptions,
): void {
  if (options.cachePoints) return
  const marked = request.messages.some((message) =>
    message.content.some((part) => 'cacheControl' in part && part.cacheControl !== undefined),
  )
  if (marked)
    dropped(
      target,
      'cachePoint',
      'cache_control',
      `${target.profile.family} has no prompt caching on Bedrock`,
    )
}
