import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createOpenAIStreamEncoder } from '../../../src/protocols/openai/stream-encode'

/** A delta chunk as OpenAI writes it, serialised whole: what the encoder's frames must equal. */
function expectedFrame(
  options: { id: string; model: string; created: number; includeUsage: boolean },
  delta: object,
): string {
  const chunk = {
    id: options.id,
    object: 'chat.completion.chunk',
    created: options.created,
    model: options.model,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: null }],
    ...(options.includeUsage ? { usage: null } : {}),
  }
  return `data: ${JSON.stringify(chunk)}\n\n`
}

describe('OpenAI stream encoder bytes', () => {
  it('writes each delta chunk byte for byte as the whole chunk serialised, whatever the model name', () => {
    fc.assert(
      fc.property(
        // Model names with quotes, braces and the text `"delta":{}` itself.
        fc.oneof(fc.string({ unit: 'binary' }), fc.constant('m"delta":{}x'), fc.constant('{}')),
        fc.boolean(),
        fc.array(fc.string({ unit: 'binary', minLength: 1 }), { minLength: 1, maxLength: 5 }),
        (model, includeUsage, deltas) => {
          const options = { id: 'chatcmpl-gw1', model, created: 1763000999, includeUsage }
          const encoder = createOpenAIStreamEncoder(options)
          const frames = [
            ...encoder.push({ type: 'message-start', id: 'msg_1', model: 'upstream' }),
            ...deltas.flatMap((delta) => encoder.push({ type: 'text-delta', index: 0, delta })),
            ...deltas.flatMap((delta) =>
              encoder.push({ type: 'reasoning-delta', index: 1, delta }),
            ),
          ]
          expect(frames).toEqual([
            expectedFrame(options, { role: 'assistant', content: '', refusal: null }),
            ...deltas.map((delta) => expectedFrame(options, { content: delta })),
            ...deltas.map((delta) => expectedFrame(options, { reasoning_content: delta })),
          ])
          for (const frame of frames) expect(JSON.parse(frame.slice(6)).model).toBe(model)
        },
      ),
    )
  })
})
