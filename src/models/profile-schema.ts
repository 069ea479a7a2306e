import * as z from 'zod/mini'
import { checkAlways } from '../internal/check-always'
import type { ModelProfileOverrides } from './profile'

/**
 * Whether `value` does not exceed `limit`; true when either is missing, or of the wrong type (it
 * has its own issue: the comparisons run even when other fields failed, see `checkAlways`).
 */
const notAbove = (value: unknown, limit: unknown): boolean =>
  typeof value !== 'number' || typeof limit !== 'number' || value <= limit

/**
 * The schema of a model entry's `profile` in the config: any field of a model profile, each
 * replacing the built-in value (docs/model-profiles.md). Unknown fields are errors. Built when
 * the config schema is (on the first config check).
 */
export function modelProfileOverridesSchema() {
  const tokens = z.int().check(z.positive())
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
        efforts: z.array(effort).check(z.minLength(1, 'list at least one effort')),
      }),
      z
        .strictObject({
          kind: z.literal('budget'),
          min: z.int().check(z.nonnegative()),
          max: z.optional(tokens),
          canDisable: z.boolean(),
          dynamic: z.optional(z.boolean()),
        })
        .check(
          z.refine((value) => notAbove(value.min, value.max), {
            message: '"min" must not exceed "max"',
            path: ['min'],
            when: checkAlways,
          }),
        ),
      z.strictObject({
        kind: z.literal('adaptive'),
        efforts: z.array(effort).check(z.minLength(1, 'list at least one effort')),
        canDisable: z.boolean(),
      }),
      z.strictObject({
        kind: z.literal('level'),
        levels: z.array(level).check(z.minLength(1, 'list at least one level')),
      }),
      z.strictObject({
        kind: z.literal('toggle'),
        field: z.enum(['thinking', 'enable_thinking'], {
          error: 'expected "thinking" or "enable_thinking"',
        }),
        clearThinking: z.optional(z.boolean()),
      }),
    ],
    {
      error:
        'expected a "kind" of "any", "none", "always", "effort", "budget", "adaptive", "level" or "toggle"',
    },
  )

  return z
    .strictObject({
      contextWindow: z.optional(tokens),
      maxOutputTokens: z.optional(tokens),
      outputLimitField: z.optional(
        z.enum(['max_tokens', 'max_completion_tokens'], {
          error: 'expected "max_tokens" or "max_completion_tokens"',
        }),
      ),
      reasoning: z.optional(reasoning),
      sampling: z.optional(
        z.enum(['all', 'none', 'unless-reasoning'], {
          error: 'expected "all", "none" or "unless-reasoning"',
        }),
      ),
      temperatureOrTopP: z.optional(z.boolean()),
      maxTemperature: z.optional(z.number().check(z.positive(), z.maximum(2))),
      structuredOutput: z.optional(
        z.enum(['schema', 'json', 'tool', 'none'], {
          error: 'expected "schema", "json", "tool" or "none"',
        }),
      ),
      forcedToolChoice: z.optional(z.boolean()),
      toolUse: z.optional(z.boolean()),
      imageInput: z.optional(z.boolean()),
      documentInput: z.optional(z.boolean()),
      reasoningHistory: z.optional(z.boolean()),
      reasoningField: z.optional(
        z.enum(['reasoning_content', 'reasoning', 'reasoning_details'], {
          error: 'expected "reasoning_content", "reasoning" or "reasoning_details"',
        }),
      ),
      embedding: z.optional(
        z.strictObject({ dimensions: tokens, shortens: z.boolean(), maxInputTokens: tokens }),
      ),
    })
    .check(
      z.refine((value) => notAbove(value.maxOutputTokens, value.contextWindow), {
        message: '"maxOutputTokens" must not exceed "contextWindow"',
        path: ['maxOutputTokens'],
        when: checkAlways,
      }),
    ) satisfies z.ZodMiniType<ModelProfileOverrides>
}
