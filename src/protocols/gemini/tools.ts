import type { ToolChoice, ToolDefinition } from '../../canonical/types'
import { isJsonObject } from '../../internal/json'
import { openApiToJsonSchema } from './openapi-schema'
import type { GeminiGenerateContentRequest } from './request-schema'
import { toGeminiJsonSchema } from './schema-sanitize'
import { geminiToolName } from './tool-name'

type FunctionCallingConfig = NonNullable<
  GeminiGenerateContentRequest['toolConfig']
>['functionCallingConfig']

/**
 * The `functionDeclarations` of every `tools` entry → canonical tools. The schema is
 * `parametersJsonSchema` as sent, else `parameters` converted from OpenAPI (TOOL-D-07), else an
 * empty object schema. Built-in tools (`googleSearch`, `codeExecution`, …) have no
 * counterpart elsewhere and are dropped (docs/translation.md › Caveats).
 *
 * @see https://ai.google.dev/api/caching#Tool
 */
export function decodeGeminiTools(
  tools: NonNullable<GeminiGenerateContentRequest['tools']>,
): ToolDefinition[] {
  return tools
    .flatMap((tool) => tool.functionDeclarations ?? [])
    .map((declaration) => ({
      name: declaration.name,
      ...(typeof declaration['description'] === 'string'
        ? { description: declaration['description'] }
        : {}),
      inputSchema: isJsonObject(declaration['parametersJsonSchema'])
        ? declaration['parametersJsonSchema']
        : isJsonObject(declaration['parameters'])
          ? openApiToJsonSchema(declaration['parameters'])
          : { type: 'object', properties: {} },
    }))
}

/**
 * Canonical tools → the one `tools` entry Gemini expects, all functions in one
 * `functionDeclarations` array (TOOL-D-01), names made acceptable (TOOL-D-03) and schemas
 * sanitised into `parametersJsonSchema` (TOOL-D-04).
 *
 * @see https://ai.google.dev/api/caching#FunctionDeclaration
 */
export function encodeGeminiTools(tools: readonly ToolDefinition[]): Record<string, unknown>[] {
  return [
    {
      functionDeclarations: tools.map((tool) => ({
        name: geminiToolName(tool.name),
        ...(tool.description === undefined ? {} : { description: tool.description }),
        ...parameters(tool.inputSchema),
      })),
    },
  ]
}

/**
 * `functionCallingConfig` → canonical tool choice.
 *
 * @see https://ai.google.dev/api/caching#FunctionCallingConfig
 */
export function decodeGeminiToolChoice(config: FunctionCallingConfig): ToolChoice | undefined {
  const mode = config?.mode
  switch (mode) {
    // VALIDATED lets the model answer in text or call a function (checked by constrained
    // decoding): the same choice as AUTO elsewhere.
    case 'AUTO':
    case 'VALIDATED':
      return { type: 'auto' }
    case 'NONE':
      return { type: 'none' }
    case 'ANY': {
      const names = config?.allowedFunctionNames ?? []
      // Several allowed names have no counterpart: any tool may be called.
      return names.length === 1 ? { type: 'tool', name: names[0]! } : { type: 'required' }
    }
    case 'MODE_UNSPECIFIED':
    case undefined:
      return undefined
    default: {
      const unknown: never = mode
      throw new Error(`Unknown function calling mode ${String(unknown)}`)
    }
  }
}

/**
 * Canonical tool choice → `functionCallingConfig`; a forced tool is `ANY` with
 * its (Gemini-safe) name as the one allowed name.
 *
 * @see https://ai.google.dev/api/caching#FunctionCallingConfig
 */
export function encodeGeminiToolChoice(choice: ToolChoice): Record<string, unknown> {
  switch (choice.type) {
    case 'auto':
      return { mode: 'AUTO' }
    case 'none':
      return { mode: 'NONE' }
    case 'required':
      return { mode: 'ANY' }
    case 'tool':
      return { mode: 'ANY', allowedFunctionNames: [geminiToolName(choice.name)] }
    default: {
      const unknown: never = choice
      throw new Error(`Unknown tool choice ${JSON.stringify(unknown)}`)
    }
  }
}

/**
 * `parametersJsonSchema`, sanitised (TOOL-D-04). A function without parameters gets none: Gemini
 * allows that, and an empty object schema buys nothing.
 */
function parameters(schema: Record<string, unknown>): Record<string, unknown> {
  const clean = toGeminiJsonSchema(schema)
  const properties = clean['properties']
  const empty =
    (clean['type'] === 'object' || clean['type'] === undefined) &&
    (!isJsonObject(properties) || Object.keys(properties).length === 0) &&
    clean['anyOf'] === undefined &&
    clean['oneOf'] === undefined &&
    clean['$ref'] === undefined
  if (empty) return {}
  // Gemini requires the parameters schema to describe an object.
  return {
    parametersJsonSchema: clean['type'] === undefined ? { type: 'object', ...clean } : clean,
  }
}
