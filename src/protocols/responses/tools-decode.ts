import type { ToolChoice, ToolDefinition } from '../../canonical/types'
import { isJsonObject, stringOf } from '../../internal/json'

/** What the client's tool names became upstream, so that calls go back under the client's names. */
export type ResponsesToolNames = {
  /** Upstream names of `custom` tools: their calls return as `custom_tool_call` items. */
  custom: ReadonlySet<string>
  /** Upstream name → the namespace and name the client declared, for tools inside a `namespace`. */
  namespaced: ReadonlyMap<string, { namespace: string; name: string }>
  /** `namespace` + NUL + name → the upstream name, to read calls in the history back. */
  qualified: ReadonlyMap<string, string>
}

/** The tools of a Responses request in canonical form, and what could not be served. */
export type DecodedTools = {
  tools: ToolDefinition[]
  toolChoice?: ToolChoice
  names: ResponsesToolNames
  /** Built-in tool types that no translated upstream serves: dropped, and named in a header. */
  dropped: string[]
}

/** The one string argument a custom tool becomes, for upstreams without freeform tools. */
export const customToolArgument = 'input'

/**
 * Responses tools → canonical tools (RESP-TOOL-01…04, RESP-TC-01).
 *
 * - A flat `function` tool keeps its name, description and JSON schema (an absent schema becomes
 *   an empty object schema); `strict` only matters to OpenAI and is not carried.
 * - A `custom` (freeform) tool, such as Codex's `apply_patch`, becomes a function with one
 *   required string argument `input`, its grammar appended to the description; its calls go back
 *   to the client as `custom_tool_call` items with the raw input, never as `function_call`.
 * - A `namespace`'s tools are flattened. A child keeps its own name unless an earlier tool has
 *   it, in which case it is sent as `<namespace>__<name>`; either way its calls go back with the
 *   client's `namespace` and `name`.
 * - Built-in tools (`web_search`, `file_search`, `code_interpreter`, `image_generation`,
 *   `computer_use…`, `mcp`, `local_shell`, `shell`, `apply_patch`, `tool_search`, …) cannot be
 *   served by a translated upstream: they are dropped and listed, never a 400.
 *
 * @see https://platform.openai.com/docs/api-reference/responses/create#responses-create-tools
 */
export function decodeResponsesTools(tools: unknown, toolChoice: unknown): DecodedTools {
  const decoded: ToolDefinition[] = []
  const custom = new Set<string>()
  const namespaced = new Map<string, { namespace: string; name: string }>()
  const qualified = new Map<string, string>()
  const dropped: string[] = []
  const taken = new Set<string>()
  const add = (tool: ToolDefinition) => {
    taken.add(tool.name)
    decoded.push(tool)
  }
  for (const tool of Array.isArray(tools) ? tools.filter(isJsonObject) : []) {
    switch (tool['type']) {
      case 'function':
        if (!taken.has(stringOf(tool['name']))) add(functionTool(tool, stringOf(tool['name'])))
        break
      case 'custom':
        if (!taken.has(stringOf(tool['name']))) {
          custom.add(stringOf(tool['name']))
          add(customTool(tool))
        }
        break
      case 'namespace': {
        const namespace = stringOf(tool['name'])
        const children = Array.isArray(tool['tools']) ? tool['tools'].filter(isJsonObject) : []
        for (const child of children) {
          const name = stringOf(child['name'])
          const upstreamName = taken.has(name) ? `${namespace}__${name}` : name
          if (taken.has(upstreamName)) continue
          namespaced.set(upstreamName, { namespace, name })
          qualified.set(`${namespace}\u0000${name}`, upstreamName)
          if (child['type'] === 'custom') {
            custom.add(upstreamName)
            add({ ...customTool(child), name: upstreamName })
          } else {
            add(functionTool(child, upstreamName))
          }
        }
        break
      }
      default:
        dropped.push(stringOf(tool['type']))
    }
  }
  const result: DecodedTools = { tools: decoded, names: { custom, namespaced, qualified }, dropped }
  const choice = decodeToolChoice(toolChoice, result)
  if (choice !== undefined) result.toolChoice = choice
  return result
}

function functionTool(tool: Record<string, unknown>, name: string): ToolDefinition {
  return {
    name,
    ...(typeof tool['description'] === 'string' ? { description: tool['description'] } : {}),
    inputSchema: isJsonObject(tool['parameters'])
      ? tool['parameters']
      : { type: 'object', properties: {} },
  }
}

function customTool(tool: Record<string, unknown>): ToolDefinition {
  const description = typeof tool['description'] === 'string' ? tool['description'] : ''
  const format = isJsonObject(tool['format']) ? tool['format'] : {}
  const grammar =
    format['type'] === 'grammar' && typeof format['definition'] === 'string'
      ? `\n\nThe \`${customToolArgument}\` argument is raw text (not JSON) in this ${stringOf(format['syntax'] ?? '')} grammar:\n\`\`\`\n${format['definition']}\n\`\`\``
      : ''
  return {
    name: stringOf(tool['name']),
    description: `${description}${grammar}`.trim(),
    inputSchema: {
      type: 'object',
      properties: {
        [customToolArgument]: { type: 'string', description: 'The raw input of the tool.' },
      },
      required: [customToolArgument],
    },
  }
}

/**
 * `tool_choice` → canonical (RESP-TC-01): `auto`/`none`/`required`, `{type:"function"|"custom",
 * name}` as that tool, `{type:"allowed_tools", mode, tools}` as its mode with the tool list cut
 * to the allowed ones; hosted-tool forms fall back to `auto`.
 */
function decodeToolChoice(choice: unknown, decoded: DecodedTools): ToolChoice | undefined {
  if (choice === 'auto' || choice === 'none' || choice === 'required') return { type: choice }
  if (!isJsonObject(choice)) return undefined
  if ((choice['type'] === 'function' || choice['type'] === 'custom') && choice['name']) {
    const name = stringOf(choice['name'])
    const namespace = typeof choice['namespace'] === 'string' ? choice['namespace'] : undefined
    const upstream =
      namespace === undefined
        ? name
        : (decoded.names.qualified.get(`${namespace}\u0000${name}`) ?? name)
    return { type: 'tool', name: upstream }
  }
  if (choice['type'] === 'allowed_tools') {
    const allowed = new Set(
      (Array.isArray(choice['tools']) ? choice['tools'] : [])
        .filter(isJsonObject)
        .map((entry) => stringOf(entry['name'] ?? '')),
    )
    decoded.tools = decoded.tools.filter((tool) =>
      allowed.has(decoded.names.namespaced.get(tool.name)?.name ?? tool.name),
    )
    return { type: choice['mode'] === 'required' ? 'required' : 'auto' }
  }
  return { type: 'auto' }
}
