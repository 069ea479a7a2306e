import type { ChatRequest } from '../../canonical/types'
import {
  cappedOutputLimit,
  cappedTemperature,
  checkModelInput,
  dropped,
} from '../../models/fit-request'
import { lenientTarget, type ModelTarget } from '../../models/model-target'
import {
  encodeTurn,
  textBlock,
  trimTrailingAssistant,
  type Block,
  type Turn,
} from './request-turns'
import { anthropicStructuredOutput, type AnthropicStructuredOutput } from './structured-output'
import { encodeAnthropicThinking, type AnthropicThinking } from './thinking-fields'

/** Policies for requests going to Anthropic, documented in docs/translation.md › Translation policies. */
export type AnthropicEncodeOptions = {
  /**
   * `max_tokens` when the client set none (Anthropic requires one: GEN-01): the model's own
   * maximum where it is known, capped at it in any case.
   */
  defaultMaxTokens: number
}

/**
 * Canonical form → a messages request body, fitted to the target model's profile.
 *
 * - All system text, wherever it stood, goes to the top-level `system` blocks in order (SYS-01,
 *   SYS-02: hoisted); empty text is dropped everywhere.
 * - Consecutive turns of one role merge, tool results first in a user turn (ROLE-01, TOOL-H-04).
 * - Thinking goes back only with an Anthropic signature (or redacted data), byte for byte; any
 *   other reasoning is dropped, never sent unsigned or with a forged signature (TOOL-H-10).
 * - Tool ids are made Anthropic-safe, identically on calls and results (TOOL-H-03); arguments
 *   that are not a JSON object become `{}` (TOOL-H-01).
 * - Thinking is asked for as the model takes it (`encodeAnthropicThinking`), `max_tokens` is
 *   capped at the model's maximum. While thinking is on, sampling fields are dropped, and a
 *   forced tool choice turns thinking off (Anthropic refuses the pair).
 * - A request whose last assistant turn holds a tool call without signed thinking before it — the
 *   client did not keep the thinking, as OpenAI and Gemini clients cannot — goes with thinking
 *   off, Anthropic's documented remedy, instead of failing with 400 (TOOL-H-10).
 * - `temperature` is clamped to the model's range (0–1, GEN-02); models that refuse sampling get
 *   none; where `temperature` and `top_p` exclude each other, `top_p` is dropped.
 * - A JSON answer goes as `output_config.format`, a forced tool or an instruction
 *   (`anthropicStructuredOutput`).
 *
 * Every change made for the model is noted on `target.adjustments`.
 *
 * @see https://docs.anthropic.com/en/api/messages
 */
export function encodeAnthropicRequest(
  request: ChatRequest,
  options: AnthropicEncodeOptions,
  target: ModelTarget = lenientTarget(),
): Record<string, unknown> {
  const { profile } = target
  checkModelInput(request, target)
  const system: Block[] = []
  const turns: Turn[] = []
  for (const message of request.messages) {
    if (message.role === 'system') {
      for (const part of message.content) if (part.text !== '') system.push(textBlock(part))
      continue
    }
    const turn = encodeTurn(message)
    if (turn.content.length === 0) continue
    const previous = turns.at(-1)
    if (previous?.role === turn.role) {
      // Tool results must lead the merged user turn; the sort is stable, so order is kept.
      const rank = (block: Block) => (block['type'] === 'tool_result' ? 0 : 1)
      previous.content = [...previous.content, ...turn.content].sort(
        (left, right) => rank(left) - rank(right),
      )
    } else {
      turns.push(turn)
    }
  }
  trimTrailingAssistant(turns)
  const structured = anthropicStructuredOutput(request, profile)
  if (structured?.kind === 'instruction') system.push({ type: 'text', text: structured.text })
  const body: Record<string, unknown> = { model: request.model, messages: turns }
  if (system.length > 0) body['system'] = system
  const limit =
    cappedOutputLimit(request.maxOutputTokens, target, 'max_tokens') ??
    Math.min(options.defaultMaxTokens, profile.maxOutputTokens ?? Infinity)
  const thinking = encodeAnthropicThinking(request.reasoning, target, limit)
  const tools = encodeTools(request, structured)
  const choice = tools.length > 0 ? encodeToolChoice(request, structured, target) : undefined
  const fitted = { ...thinking }
  const forced = choice?.['type'] === 'any' || choice?.['type'] === 'tool'
  if (forced)
    turnThinkingOff(fitted, target, 'Anthropic refuses thinking with a forced tool choice')
  if (lastToolTurnLacksThinking(turns)) {
    turnThinkingOff(
      fitted,
      target,
      'the last assistant turn has a tool call without the signed thinking that preceded it',
    )
  }
  if (fitted.thinking !== undefined) body['thinking'] = fitted.thinking
  const outputConfig: Record<string, unknown> = {}
  if (fitted.effort !== undefined) outputConfig['effort'] = fitted.effort
  if (structured?.kind === 'format') outputConfig['format'] = structured.format
  if (Object.keys(outputConfig).length > 0) body['output_config'] = outputConfig
  body['max_tokens'] = fitted.maxTokens
  encodeSampling(request, body, target, fitted.mayThink)
  if (request.stopSequences !== undefined) body['stop_sequences'] = request.stopSequences
  if (request.user !== undefined) body['metadata'] = { user_id: request.user }
  if (tools.length > 0) body['tools'] = tools
  if (choice !== undefined) body['tool_choice'] = choice
  if (request.stream) body['stream'] = true
  return body
}

/**
 * Sends the request with thinking off, where the model allows it: the remedy for a forced tool
 * choice, and for a tool turn whose thinking the client did not keep.
 */
function turnThinkingOff(thinking: AnthropicThinking, target: ModelTarget, reason: string): void {
  if (!thinking.mayThink) return
  if (!thinking.canDisable) {
    target.adjustments.push({
      field: 'thinking',
      change: 'set',
      to: thinking.thinking ?? 'default',
      reason: `${reason}, yet ${target.profile.family} cannot turn thinking off`,
    })
    return
  }
  target.adjustments.push({
    field: 'thinking',
    change: 'disabled',
    from: thinking.thinking ?? 'default',
    reason,
  })
  thinking.thinking = { type: 'disabled' }
  // Where thinking can be turned off only at effort high or below (Claude Opus 5).
  if (thinking.effort === 'xhigh' || thinking.effort === 'max') thinking.effort = 'high'
  thinking.mayThink = false
}

function encodeTools(
  request: ChatRequest,
  structured: AnthropicStructuredOutput | undefined,
): Block[] {
  const tools: Block[] = (request.tools ?? []).map((tool) => ({
    name: tool.name,
    ...(tool.description === undefined ? {} : { description: tool.description }),
    input_schema: tool.inputSchema,
  }))
  if (structured?.kind === 'tool') tools.push(structured.tool)
  return tools
}

/**
 * The tool choice: the client's (TC-01–TC-04), or, for a JSON answer carried by a tool with no
 * other tools, that tool forced. A model that refuses forced tool use gets `auto`.
 */
function encodeToolChoice(
  request: ChatRequest,
  structured: AnthropicStructuredOutput | undefined,
  target: ModelTarget,
): Block | undefined {
  const choice = request.toolChoice
  let mapped: Block | undefined =
    structured?.kind === 'tool' && (request.tools ?? []).length === 0
      ? { type: 'tool', name: structured.name }
      : choice === undefined
        ? undefined
        : choice.type === 'tool'
          ? { type: 'tool', name: choice.name }
          : { type: choice.type === 'required' ? 'any' : choice.type }
  const forced = mapped?.['type'] === 'any' || mapped?.['type'] === 'tool'
  if (forced && !target.profile.forcedToolChoice) {
    target.adjustments.push({
      field: 'tool_choice',
      change: 'mapped',
      from: mapped,
      to: { type: 'auto' },
      reason: `${target.profile.family} refuses a tool choice that forces a tool`,
    })
    mapped = { type: 'auto' }
  }
  const single = request.parallelToolCalls === false || structured?.kind === 'tool'
  return single ? { ...(mapped ?? { type: 'auto' }), disable_parallel_tool_use: true } : mapped
}

/**
 * Sampling fields as the model takes them (GEN-02, GEN-03): none while it may think (Anthropic
 * refuses them with thinking) or when it refuses them outright; `temperature` within its range;
 * not both `temperature` and `top_p` where they exclude each other (`top_p` is dropped).
 */
function encodeSampling(
  request: ChatRequest,
  body: Record<string, unknown>,
  target: ModelTarget,
  mayThink: boolean,
): void {
  const { profile } = target
  const refused = profile.sampling === 'none' || mayThink
  const reason =
    profile.sampling === 'none'
      ? `${profile.family} refuses sampling fields`
      : 'Anthropic refuses sampling fields while thinking is on'
  const fields = [
    ['temperature', request.temperature],
    ['top_p', request.topP],
    ['top_k', request.topK],
  ] as const
  for (const [field, value] of fields) {
    if (value === undefined) continue
    if (refused) dropped(target, field, value, reason)
    else if (field === 'top_p' && profile.temperatureOrTopP && request.temperature !== undefined)
      dropped(target, field, value, `${profile.family} takes temperature or top_p, not both`)
    else
      body[field] =
        field === 'temperature' ? cappedTemperature(value, target, { wireMaximum: 1 }) : value
  }
}

/**
 * True when the last assistant turn holds a `tool_use` but does not start with signed thinking:
 * while thinking is on, Anthropic refuses that turn ("a final `assistant` message must start with
 * a thinking block").
 */
function lastToolTurnLacksThinking(turns: Turn[]): boolean {
  const last = turns.findLast((turn) => turn.role === 'assistant')
  if (last === undefined || !last.content.some((block) => block['type'] === 'tool_use'))
    return false
  const first = last.content[0]?.['type']
  return first !== 'thinking' && first !== 'redacted_thinking'
}
