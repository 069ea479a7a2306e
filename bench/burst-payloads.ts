/** The key and model of the burst benchmark's gateway. */
export const burstKey = 'sk-burst-0123456789abcdef0123'
export const burstModel = 'gpt-4o-mini'

/** Each client's request body names its index, so the upstream can tell who reached it. */
export function burstRequestBody(index: number): string {
  return JSON.stringify({
    model: burstModel,
    stream: true,
    messages: [{ role: 'user', content: `burst client ${index}` }],
  })
}

/** The client index in a request body as the upstream receives it. */
export function clientIndexOf(body: string): number {
  return Number(/burst client (\d+)/.exec(body)?.[1] ?? -1)
}

const chunk = (delta: object, finish: string | null) =>
  `data: ${JSON.stringify({
    id: 'chatcmpl-burst',
    object: 'chat.completion.chunk',
    created: 1_763_000_000,
    model: 'gpt-4o-mini-2024-07-18',
    choices: [{ index: 0, delta, finish_reason: finish }],
    usage: null,
  })}\n\n`

/** An OpenAI stream of 20 frames: role, 16 words, finish, usage, `[DONE]`. */
export const burstFrames: readonly string[] = [
  chunk({ role: 'assistant', content: '' }, null),
  ...Array.from({ length: 16 }, (_, index) => chunk({ content: `word${index} ` }, null)),
  chunk({}, 'stop'),
  `data: ${JSON.stringify({
    id: 'chatcmpl-burst',
    object: 'chat.completion.chunk',
    created: 1_763_000_000,
    model: 'gpt-4o-mini-2024-07-18',
    choices: [],
    usage: { prompt_tokens: 12, completion_tokens: 16, total_tokens: 28 },
  })}\n\n`,
  'data: [DONE]\n\n',
]
