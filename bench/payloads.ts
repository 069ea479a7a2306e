/**
 * The bytes every benchmark case moves: one client request per format, and the mock upstream's
 * answers, shaped like OpenAI's (ids, fingerprints, detailed usage, `"usage":null` on stream
 * chunks when usage is requested). All strings are built once, so the mock costs almost nothing.
 */

/** The key the gateway under test accepts. */
export const benchKey = 'sk-bench-0123456789abcdef0123'

/** The model the client asks for; the group serves it under the same name. */
export const benchModel = 'gpt-4o-mini'

const messages = [
  {
    role: 'system',
    content: 'You are a concise assistant. Answer in one short paragraph and cite no sources.',
  },
  { role: 'user', content: 'What is the difference between a relay and a gateway?' },
  {
    role: 'assistant',
    content:
      'A relay forwards bytes as they are; a gateway also authenticates, routes and meters them.',
  },
  { role: 'user', content: 'And what does that cost per request?' },
]

/** The non-stream chat request body. */
export const jsonRequestBody = JSON.stringify({
  model: benchModel,
  messages,
  temperature: 0.2,
  max_tokens: 256,
})

/** The stream chat request body, asking for the usage chunk as most SDK users do. */
export const streamRequestBody = JSON.stringify({
  model: benchModel,
  messages,
  temperature: 0.2,
  max_tokens: 256,
  stream: true,
  stream_options: { include_usage: true },
})

const id = 'chatcmpl-BenchB9MHDbslfkBeAs8l4bebGdFOJ6PeG'
const created = 1_741_570_283
const upstreamModel = 'gpt-4o-mini-2024-07-18'
const fingerprint = 'fp_06737a9306'
const pieces = [
  'A relay',
  ' only moves bytes,',
  ' so its cost is',
  ' one socket read',
  ' and one write.',
  ' A gateway adds',
  ' auth, routing',
  ' and metering,',
  ' each a few',
  ' microseconds.',
]
const content = pieces.join('')
const usage = {
  prompt_tokens: 61,
  completion_tokens: 28,
  total_tokens: 89,
  prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
  completion_tokens_details: {
    reasoning_tokens: 0,
    audio_tokens: 0,
    accepted_prediction_tokens: 0,
    rejected_prediction_tokens: 0,
  },
}

/** The upstream's `chat.completion` answer. */
export const completionJson = JSON.stringify({
  id,
  object: 'chat.completion',
  created,
  model: upstreamModel,
  choices: [
    {
      index: 0,
      message: { role: 'assistant', content, refusal: null, annotations: [] },
      logprobs: null,
      finish_reason: 'stop',
    },
  ],
  usage,
  service_tier: 'default',
  system_fingerprint: fingerprint,
})

function chunk(delta: object, finishReason: string | null, withUsage: boolean): string {
  return JSON.stringify({
    id,
    object: 'chat.completion.chunk',
    created,
    model: upstreamModel,
    service_tier: 'default',
    system_fingerprint: fingerprint,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    ...(withUsage ? { usage: null } : {}),
  })
}

function streamEvents(withUsage: boolean): string[] {
  const events = pieces.map((piece, index) =>
    chunk(
      index === 0 ? { role: 'assistant', content: piece, refusal: null } : { content: piece },
      null,
      withUsage,
    ),
  )
  events.push(chunk({}, 'stop', withUsage))
  if (withUsage) {
    events.push(
      JSON.stringify({
        id,
        object: 'chat.completion.chunk',
        created,
        model: upstreamModel,
        service_tier: 'default',
        system_fingerprint: fingerprint,
        choices: [],
        usage,
      }),
    )
  }
  events.push('[DONE]')
  return events.map((data) => `data: ${data}\n\n`)
}

/** SSE frames of a streamed answer, each a complete `data:` event; the last is `[DONE]`. */
export const streamFrames = { withUsage: streamEvents(true), withoutUsage: streamEvents(false) }

/** The model the translated case asks for: an Anthropic group behind an OpenAI client. */
export const translatedModel = 'claude-bench'

/** The stream chat request of the translated case: the same conversation, to the Anthropic group. */
export const translatedRequestBody = JSON.stringify({
  model: translatedModel,
  messages,
  temperature: 0.2,
  max_tokens: 256,
  stream: true,
  stream_options: { include_usage: true },
})

/**
 * The same conversation as an Anthropic messages stream request: what the bare relay forwards in
 * the translated case, so that both sides move the same upstream stream.
 */
export const anthropicStreamRequestBody = JSON.stringify({
  model: 'claude-bench-upstream',
  system: messages[0]!.content,
  messages: messages.slice(1),
  temperature: 0.2,
  max_tokens: 256,
  stream: true,
})

const anthropicId = 'msg_01BenchXq8nKp3VY2mR7Z5c4d'

/** An Anthropic messages stream carrying the same text, as Anthropic frames it. */
export const anthropicStreamFrames: string[] = [
  [
    'message_start',
    {
      type: 'message_start',
      message: {
        id: anthropicId,
        type: 'message',
        role: 'assistant',
        model: 'claude-bench-upstream',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: 61,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
          output_tokens: 1,
        },
      },
    },
  ] as const,
  [
    'content_block_start',
    { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
  ] as const,
  ...pieces.map(
    (piece) =>
      [
        'content_block_delta',
        { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: piece } },
      ] as const,
  ),
  ['content_block_stop', { type: 'content_block_stop', index: 0 }] as const,
  [
    'message_delta',
    {
      type: 'message_delta',
      delta: { stop_reason: 'end_turn', stop_sequence: null },
      usage: { output_tokens: 28 },
    },
  ] as const,
  ['message_stop', { type: 'message_stop' }] as const,
].map(([event, data]) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)
