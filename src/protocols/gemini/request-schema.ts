import { shape as z, type Infer } from '../../http/body-shape'
import type { ArrayLimit } from '../../http/array-limits'
import { maxConversationItems, maxListItems } from '../../http/input-limits'
import { normalizeGeminiBody } from './normalize-body'

export { normalizeGeminiBody }

const part = z.looseObject({})

const content = z.looseObject({
  // Omitted roles are user turns.
  role: z.oneOf(['user', 'model']).optional(),
  parts: z.array(part),
})

const tool = z.looseObject({
  functionDeclarations: z.array(z.looseObject({ name: z.string().min(1) })).optional(),
})

const toolConfig = z.looseObject({
  functionCallingConfig: z
    .looseObject({
      mode: z.oneOf(['MODE_UNSPECIFIED', 'AUTO', 'ANY', 'NONE', 'VALIDATED']).optional(),
      allowedFunctionNames: z.array(z.string()).optional(),
    })
    .optional(),
})

const generationConfig = z.looseObject({
  temperature: z.number().min(0).max(2).nullish(),
  topP: z.number().min(0).max(1).nullish(),
  topK: z.number().nonnegative().nullish(),
  maxOutputTokens: z
    .number()
    .int()
    .positive('`maxOutputTokens` must be a positive integer.')
    .nullish(),
  stopSequences: z.array(z.string()).nullish(),
  responseMimeType: z.string().nullish(),
  responseSchema: z.looseObject({}).nullish(),
  responseJsonSchema: z.unknown().optional(),
  thinkingConfig: z
    .looseObject({
      thinkingBudget: z.number().int().nullish(),
      thinkingLevel: z.string().nullish(),
      includeThoughts: z.boolean().nullish(),
    })
    .nullish(),
  candidateCount: z.number().int().positive().nullish(),
  seed: z.number().int().nullish(),
  presencePenalty: z.number().nullish(),
  frequencyPenalty: z.number().nullish(),
})

const systemInstruction = z.looseObject({ parts: z.array(part) })

/**
 * The fields of a generateContent body that the gateway reads, after camelCase normalisation
 * (`normalizeGeminiBody`). The model comes from the URL, not the body. Loose objects: unknown
 * fields are allowed and, on passthrough, reach the upstream untouched.
 *
 * @see https://ai.google.dev/api/generate-content#request-body
 */
export const geminiGenerateContentRequestSchema = z.looseObject({
  contents: z.array(content).min(1, '`contents` must be a non-empty array.'),
  systemInstruction: systemInstruction.optional(),
  tools: z.array(tool).optional(),
  toolConfig: toolConfig.optional(),
  generationConfig: generationConfig.optional(),
  safetySettings: z.array(z.looseObject({})).optional(),
  cachedContent: z.string().optional(),
})

/** A validated generateContent body. */
export type GeminiGenerateContentRequest = Infer<typeof geminiGenerateContentRequestSchema>

/**
 * A generateContent body as a client sends it, snake_case or camelCase: normalised, then checked.
 * Hand this to `parseJsonBody`, so a bad field is named in camelCase.
 */
export const geminiGenerateContentBodySchema = z.preprocess(
  normalizeGeminiBody,
  geminiGenerateContentRequestSchema,
)

const countTokensFields = z.looseObject({
  contents: z.array(content).min(1, '`contents` must be a non-empty array.').optional(),
  generateContentRequest: z
    .looseObject({
      model: z.string().optional(),
      contents: z.array(content).min(1, '`contents` must be a non-empty array.'),
      systemInstruction: systemInstruction.optional(),
      tools: z.array(tool).optional(),
      toolConfig: toolConfig.optional(),
      generationConfig: generationConfig.optional(),
    })
    .optional(),
})

/**
 * A countTokens body: either `{contents}` or `{generateContentRequest}`, never both. The JS
 * SDK in Developer API mode sends only `{contents}`; the second form is the one
 * that also counts system instructions and tools.
 *
 * @see https://ai.google.dev/api/tokens#method:-models.counttokens
 */
export const geminiCountTokensRequestSchema = countTokensFields.superRefine((value, context) => {
  const forms =
    Number(value.contents !== undefined) + Number(value.generateContentRequest !== undefined)
  if (forms !== 1) {
    context.addIssue({
      code: 'custom',
      path: forms === 0 ? ['contents'] : [],
      message:
        forms === 0
          ? 'either `contents` or `generateContentRequest` is required.'
          : 'give either `contents` or `generateContentRequest`, not both.',
    })
  }
})

/** A validated countTokens body. */
export type GeminiCountTokensRequest = Infer<typeof geminiCountTokensRequestSchema>

/** A countTokens body as a client sends it: normalised to camelCase, then checked. */
export const geminiCountTokensBodySchema = z.preprocess(
  normalizeGeminiBody,
  geminiCountTokensRequestSchema,
)

/**
 * The generateContent body a countTokens request describes, so that the request translator can
 * carry it to another protocol. The `model` inside `generateContentRequest` is dropped: the model
 * comes from the URL, as for generateContent.
 *
 * @see https://ai.google.dev/api/tokens#request-body
 */
export function countTokensContentRequest(
  body: GeminiCountTokensRequest,
): GeminiGenerateContentRequest {
  if (body.generateContentRequest !== undefined) {
    const { model: _model, ...rest } = body.generateContentRequest
    return rest
  }
  return { contents: body.contents ?? [] }
}

/** The arrays of a generateContent body (camelCase) the gateway walks, with their caps (docs/security.md). */
export const geminiArrayLimits: readonly ArrayLimit[] = [
  { path: 'contents', max: maxConversationItems },
  { path: 'contents[].parts', max: maxListItems },
  { path: 'contents[].parts[].functionResponse.parts', max: maxListItems },
  { path: 'systemInstruction.parts', max: maxListItems },
  { path: 'tools', max: maxListItems },
  { path: 'tools[].functionDeclarations', max: maxListItems },
  { path: 'safetySettings', max: maxListItems },
  { path: 'generationConfig.stopSequences', max: maxListItems },
]

/** The arrays of a countTokens body the gateway walks: its own `contents`, or the request's. */
export const geminiCountTokensArrayLimits: readonly ArrayLimit[] = [
  ...geminiArrayLimits,
  ...geminiArrayLimits.map((limit) => ({ ...limit, path: `generateContentRequest.${limit.path}` })),
]
