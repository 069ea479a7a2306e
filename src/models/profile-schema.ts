import { z } from 'zod'
import type { ModelProfileOverrides } from './profile'

const tokens = z.number().int().positive()
const effort = z.enum(['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'], {
  error: 'expected one of "none", "minimal", "low", "medium", "high", "xhigh", "max"',
})
const level = z.enum(['minimal', 'low', 'medium', 'high'], {
  error: 'expected one of "minimal", "low", "medium", "high"',
})

const reasoning = z.discriminatedUnion(
  'kind',
  [
    z.strictObject({ kind: z.literal('any') }),
    z.strictObject({ kind: z.literal('none') }),
    z.strictObject({ kind: z.literal('always') }),
    z.strictObject({
      kind: z.literal('effort'),
      efforts: z.array(effort).min(1, 'list at least one effort'),
    }),
    z
      .strictObject({
        kind: z.literal('budget'),
        min: z.number().int().nonnegative(),
        max: tokens.optional(),
        canDisable: z.boolean(),
        dynamic: z.boolean().optional(),
      })
      .refine((value) => value.max === undefined || value.min <= value.max, {
        message: '"min" must not exceed "max"',
        path: ['min'],
      }),
    z.strictObject({
      kind: z.literal('adaptive'),
      efforts: z.array(effort).min(1, 'list at least one effort'),
      canDisable: z.boolean(),
    }),
    z.strictObject({
      kind: z.literal('level'),
      levels: z.array(level).min(1, 'list at least one level'),
    }),
    z.strictObject({
      kind: z.literal('toggle'),
      field: z.enum(['thinking', 'enable_thinking'], {
        error: 'expected "thinking" or "enable_thinking"',
      }),
    }),
  ],
  {
    error:
      'expected a "kind" of "any", "none", "always", "effort", "budget", "adaptive", "level" or "toggle"',
  },
)

/**
 * The `profile` of a model entry in the config: any field of a model profile, each replacing the
 * built-in value (`README` › Model profiles). Unknown fields are errors.
 */
export const modelProfileOverridesSchema = z
  .strictObject({
    contextWindow: tokens.optional(),
    maxOutputTokens: tokens.optional(),
    outputLimitField: z
      .enum(['max_tokens', 'max_completion_tokens'], {
        error: 'expected "max_tokens" or "max_completion_tokens"',
      })
      .optional(),
    reasoning: reasoning.optional(),
    sampling: z
      .enum(['all', 'none', 'unless-reasoning'], {
        error: 'expected "all", "none" or "unless-reasoning"',
      })
      .optional(),
    temperatureOrTopP: z.boolean().optional(),
    maxTemperature: z.number().positive().max(2).optional(),
    structuredOutput: z
      .enum(['schema', 'json', 'tool', 'none'], {
        error: 'expected "schema", "json", "tool" or "none"',
      })
      .optional(),
    forcedToolChoice: z.boolean().optional(),
    imageInput: z.boolean().optional(),
    documentInput: z.boolean().optional(),
    reasoningHistory: z.boolean().optional(),
  })
  .refine(
    (value) =>
      value.contextWindow === undefined ||
      value.maxOutputTokens === undefined ||
      value.maxOutputTokens <= value.contextWindow,
    { message: '"maxOutputTokens" must not exceed "contextWindow"', path: ['maxOutputTokens'] },
  ) satisfies z.ZodType<ModelProfileOverrides>
