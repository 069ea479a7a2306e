import { shape as z, type Infer, type Shape } from '../../http/body-shape'
import type { ArrayLimit } from '../../http/array-limits'
import { maxConversationItems, maxListItems } from '../../http/input-limits'

const text = z.string()
const part = z.looseObject({ type: z.string() })
const messageContent = z.union([text, z.array(part)])
const toolOutput = z.union([text, z.array(part)])

/**
 * The fields each input item type must carry, checked when the gateway reads them. A Map, so that
 * a client's `type` can never reach a prototype member. Item types not listed (hosted tool calls,
 * `compaction`, Codex's own kinds) are accepted and dropped on translation (RESP-REQ-15).
 */
const itemSchemas = new Map<string, Shape<unknown>>([
  [
    'message',
    z.looseObject({
      role: z.oneOf(['user', 'assistant', 'system', 'developer']),
      content: messageContent,
    }),
  ],
  [
    'function_call',
    z.looseObject({ call_id: z.string().min(1), name: z.string().min(1), arguments: text }),
  ],
  ['function_call_output', z.looseObject({ call_id: z.string().min(1), output: toolOutput })],
  [
    'custom_tool_call',
    z.looseObject({ call_id: z.string().min(1), name: z.string().min(1), input: text }),
  ],
  ['custom_tool_call_output', z.looseObject({ call_id: z.string().min(1), output: toolOutput })],
  [
    'reasoning',
    z.looseObject({
      summary: z.array(z.looseObject({ text: text.optional() })).optional(),
      encrypted_content: text.nullish(),
    }),
  ],
  ['item_reference', z.looseObject({ id: z.string().min(1) })],
])

/** One input item: typed ones are checked against their schema, a bare `{role, content}` is a message. */
const inputItem = z.looseObject({ type: z.string().optional() }).superRefine((item, context) => {
  const schema = itemSchemas.get(item.type ?? 'message')
  if (schema === undefined) return
  const result = schema.safeParse(item)
  if (result.success) return
  for (const issue of result.error.issues) {
    context.addIssue({ code: 'custom', path: issue.path, message: issue.message })
  }
})

/** The fields each tool type must carry; other types (built-in tools) are dropped on translation. */
const toolSchemas = new Map<string, Shape<unknown>>([
  ['function', z.looseObject({ name: z.string().min(1) })],
  [
    'custom',
    z.looseObject({
      name: z.string().min(1),
      format: z.looseObject({ type: z.string() }).nullish(),
    }),
  ],
  [
    'namespace',
    z.looseObject({
      name: z.string().min(1),
      tools: z.array(z.looseObject({ type: z.string().optional(), name: z.string().min(1) })),
    }),
  ],
])

const tool = z.looseObject({ type: z.string() }).superRefine((value, context) => {
  const result = toolSchemas.get(value.type)?.safeParse(value)
  if (result === undefined || result.success) return
  for (const issue of result.error.issues) {
    context.addIssue({ code: 'custom', path: issue.path, message: issue.message })
  }
})

/**
 * The fields of a Responses request that the gateway reads, checked at the trust boundary. Loose
 * objects: unknown fields are allowed and, on passthrough, reach the upstream untouched.
 *
 * @see https://platform.openai.com/docs/api-reference/responses/create
 */
export const responsesRequestSchema = z.looseObject({
  model: z.string().min(1, '`model` must be a non-empty string.'),
  input: z.union([text, z.array(inputItem)]).optional(),
  instructions: text.nullish(),
  tools: z.array(tool).nullish(),
  tool_choice: z.union([text, z.looseObject({ type: z.string() })]).nullish(),
  parallel_tool_calls: z.boolean().nullish(),
  max_output_tokens: z.number().int().positive().nullish(),
  temperature: z.number().min(0).max(2).nullish(),
  top_p: z.number().min(0).max(1).nullish(),
  stream: z.boolean().nullish(),
  store: z.boolean().nullish(),
  background: z.boolean().nullish(),
  previous_response_id: z.string().min(1).nullish(),
  include: z.array(text).nullish(),
  text: z.looseObject({ format: z.looseObject({ type: z.string() }).nullish() }).nullish(),
  reasoning: z.looseObject({ effort: text.nullish(), summary: text.nullish() }).nullish(),
  metadata: z.stringRecord().nullish(),
  prompt_cache_key: text.nullish(),
  user: text.nullish(),
  safety_identifier: text.nullish(),
})

/** A validated Responses request. */
export type ResponsesRequest = Infer<typeof responsesRequestSchema>

/** One validated input item, as the client wrote it. */
export type ResponsesInputItem = Record<string, unknown> & { type?: string }

/** Caps on the arrays of a Responses request, checked before validation walks them. */
export const responsesArrayLimits: readonly ArrayLimit[] = [
  { path: 'input', max: maxConversationItems },
  { path: 'input[].content', max: maxListItems },
  { path: 'input[].output', max: maxListItems },
  { path: 'tools', max: maxListItems },
  { path: 'tools[].tools', max: maxListItems },
  { path: 'include', max: maxListItems },
]
