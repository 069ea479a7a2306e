import type { ChatRequest } from '../../canonical/types'
import { GatewayError } from '../../errors'
import type { ModelTarget } from '../../models/model-target'
import type { Block, Turn } from './request-content'
import { converseToolName } from './tool-name'

/**
 * The request's `toolConfig`, or `undefined` for none.
 *
 * - Each tool is a `toolSpec` with its schema under `inputSchema.json`; names are made
 *   Converse-safe (`converseToolName`).
 * - `auto` → `{auto: {}}`, `required` → `{any: {}}`, a named tool → `{tool: {name}}`; a model that
 *   refuses a forced choice gets `auto`, noted.
 * - Converse has no `none`: the tools are left out, unless the history holds tool calls or
 *   results, for which Converse requires a `toolConfig`; then the tools go without a choice, noted.
 * - A history with calls of tools the request no longer declares gets a minimal spec for each
 *   (Converse refuses `toolUse` blocks without a `toolConfig` naming them), noted.
 * - A model whose profile takes no tools (`toolUse: false`) is refused tools with 400.
 *
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ToolConfiguration.html
 */
export function converseToolConfig(
  request: ChatRequest,
  turns: readonly Turn[],
  target: ModelTarget,
): Record<string, unknown> | undefined {
  const { profile } = target
  const declared = request.tools ?? []
  const history = historyToolNames(turns)
  if (declared.length === 0 && history.size === 0) return undefined
  if (profile.toolUse === false) {
    throw new GatewayError(
      'invalid_request',
      `The model \`${request.model}\` does not take tools on the Converse API; remove the tools or use another model.`,
    )
  }
  const choice = request.toolChoice
  if (choice?.type === 'none' && history.size === 0) {
    target.adjustments.push({
      field: 'toolConfig',
      change: 'dropped',
      from: declared.map((tool) => tool.name),
      reason: 'the Converse API has no tool choice "none": the tools are left out instead',
    })
    return undefined
  }
  const tools: Block[] = declared.map((tool) => ({
    toolSpec: {
      name: converseToolName(tool.name),
      ...(tool.description === undefined || tool.description === ''
        ? {}
        : { description: tool.description }),
      inputSchema: { json: tool.inputSchema },
    },
  }))
  const names = new Set(declared.map((tool) => converseToolName(tool.name)))
  const missing = [...history].filter((name) => !names.has(name))
  if (missing.length > 0) {
    target.adjustments.push({
      field: 'toolConfig.tools',
      change: 'set',
      to: missing,
      reason:
        'the history calls tools the request does not declare, and Converse requires a toolConfig naming them',
    })
    for (const name of missing)
      tools.push({ toolSpec: { name, inputSchema: { json: { type: 'object' } } } })
  }
  const config: Record<string, unknown> = { tools }
  const mapped = toolChoice(request, target)
  if (mapped !== undefined) config['toolChoice'] = mapped
  if (request.parallelToolCalls === false) {
    target.adjustments.push({
      field: 'parallel_tool_calls',
      change: 'dropped',
      from: false,
      reason: 'the Converse API cannot limit a turn to one tool call',
    })
  }
  return config
}

function toolChoice(request: ChatRequest, target: ModelTarget): Block | undefined {
  const choice = request.toolChoice
  if (choice === undefined) return undefined
  if (choice.type === 'none') {
    target.adjustments.push({
      field: 'toolConfig.toolChoice',
      change: 'dropped',
      from: 'none',
      reason:
        'the Converse API has no tool choice "none", and the history holds tool calls, which need the tools declared',
    })
    return undefined
  }
  if (choice.type === 'auto') return { auto: {} }
  const forced: Block =
    choice.type === 'tool' ? { tool: { name: converseToolName(choice.name) } } : { any: {} }
  if (target.profile.forcedToolChoice) return forced
  target.adjustments.push({
    field: 'toolConfig.toolChoice',
    change: 'mapped',
    from: forced,
    to: { auto: {} },
    reason: `${target.profile.family} refuses a tool choice that forces a tool`,
  })
  return { auto: {} }
}

/** The names of the tools called in the history. */
function historyToolNames(turns: readonly Turn[]): Set<string> {
  const names = new Set<string>()
  for (const turn of turns) {
    for (const block of turn.content) {
      const use = block['toolUse'] as { name?: unknown } | undefined
      if (use !== undefined && typeof use.name === 'string') names.add(use.name)
    }
  }
  return names
}
