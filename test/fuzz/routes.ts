import { gatewayThinkingSignature } from '../../src/protocols/anthropic/thinking-signature'
import { packCarriedThinking } from '../../src/protocols/gemini/carried-thinking'
import { reasoningOriginSignature } from '../../src/protocols/openai/reasoning-origin'
import { mintReasoningBlob } from '../../src/protocols/responses/reasoning-blob'
import type { VendorProtocol } from './vendor-fakes'

/**
 * The inbound routes the property suites drive, one row each. A new route (the Responses API,
 * say) is one more row: its path, the protocol its errors are written in, and a realistic valid
 * body to mutate.
 */
export type InboundRoute = {
  name: string
  /** The protocol of the route's error bodies. */
  errors: VendorProtocol
  stream: boolean
  /** Where the call name goes: the body's `model`, or the path (Gemini). */
  modelIn: 'body' | 'path'
  path(model: string): string
  /** A valid body as the route's SDK sends it; `model` is set for `modelIn: 'body'`. */
  body(model: string): Record<string, unknown>
  headers?: Record<string, string>
}

const openAITools = [
  {
    type: 'function',
    function: {
      name: 'lookup',
      description: 'Looks a term up.',
      parameters: {
        type: 'object',
        properties: { q: { type: 'string', description: 'the term' } },
        required: ['q'],
        additionalProperties: false,
      },
    },
  },
]

const chatBody = (stream: boolean) => (model: string) => ({
  model,
  messages: [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: [{ type: 'text', text: 'Find "gateway".' }] },
    {
      role: 'assistant',
      content: null,
      tool_calls: [
        {
          id: 'call_1',
          type: 'function',
          function: { name: 'lookup', arguments: '{"q":"gateway"}' },
        },
      ],
    },
    { role: 'tool', tool_call_id: 'call_1', content: 'A gateway routes and meters calls.' },
    { role: 'user', content: 'Summarise.' },
  ],
  tools: openAITools,
  temperature: 0.3,
  max_tokens: 200,
  ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
})

/**
 * Reasoning an OpenAI-compatible upstream handed out, in each carrier a client brings back (ADR
 * 0018): mutations alter, cut and swap them, and each must stay a 400 or a valid request.
 */
const carried = (() => {
  const text = 'Look it up — 🧠'
  const signature = reasoningOriginSignature('reasoning_content', 'up-openai-model', text)
  const part = { type: 'reasoning' as const, text, signature }
  return {
    text,
    thinkingTag: gatewayThinkingSignature(signature),
    thoughtSignature: packCarriedThinking([part])!,
    blob: mintReasoningBlob(part)!,
  }
})()

const anthropicTools = [
  {
    name: 'lookup',
    description: 'Looks a term up.',
    input_schema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
  },
]

const messagesBody = (stream: boolean, count: boolean) => (model: string) => ({
  model,
  ...(count ? {} : { max_tokens: 256 }),
  system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }],
  messages: [
    { role: 'user', content: 'Find "gateway".' },
    {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'Use the tool.', signature: 'EqQBCkgIARABGAIiQL' },
        { type: 'thinking', thinking: carried.text, signature: carried.thinkingTag },
        { type: 'tool_use', id: 'toolu_1', name: 'lookup', input: { q: 'gateway' } },
      ],
    },
    {
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: 'toolu_1',
          content: [{ type: 'text', text: 'Routes calls.' }],
        },
        { type: 'text', text: 'Summarise.' },
      ],
    },
  ],
  tools: anthropicTools,
  tool_choice: { type: 'auto' },
  ...(stream ? { stream: true } : {}),
})

const geminiBody = () => ({
  systemInstruction: { parts: [{ text: 'Be brief.' }] },
  contents: [
    { role: 'user', parts: [{ text: 'Find "gateway".' }] },
    {
      role: 'model',
      parts: [
        {
          functionCall: { name: 'lookup', args: { q: 'gateway' } },
          thoughtSignature: carried.thoughtSignature,
        },
      ],
    },
    {
      role: 'user',
      parts: [
        { functionResponse: { name: 'lookup', response: { result: 'Routes calls.' } } },
        { text: 'Summarise.' },
      ],
    },
  ],
  tools: [
    {
      functionDeclarations: [
        {
          name: 'lookup',
          description: 'Looks a term up.',
          parameters: { type: 'OBJECT', properties: { q: { type: 'STRING' } }, required: ['q'] },
        },
      ],
    },
  ],
  generation_config: { temperature: 0.3, maxOutputTokens: 200 },
})

const geminiPath = (action: string) => (model: string) =>
  `/v1beta/models/${encodeURIComponent(model)}:${action}`

const responsesBody = (stream: boolean) => (model: string) => ({
  model,
  instructions: 'Be brief.',
  input: [
    { role: 'user', content: [{ type: 'input_text', text: 'Find "gateway".' }] },
    { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: carried.blob },
    { type: 'function_call', call_id: 'call_1', name: 'lookup', arguments: '{"q":"gateway"}' },
    { type: 'function_call_output', call_id: 'call_1', output: 'Routes calls.' },
    { role: 'user', content: 'Summarise.' },
  ],
  tools: [
    {
      type: 'function',
      name: 'lookup',
      description: 'Looks a term up.',
      parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
      strict: false,
    },
  ],
  max_output_tokens: 200,
  store: false,
  ...(stream ? { stream: true } : {}),
})

/** Every inbound generation and counting route. */
export const inboundRoutes: InboundRoute[] = [
  {
    name: 'chat-completions',
    errors: 'openai',
    stream: false,
    modelIn: 'body',
    path: () => '/v1/chat/completions',
    body: chatBody(false),
  },
  {
    name: 'chat-completions stream',
    errors: 'openai',
    stream: true,
    modelIn: 'body',
    path: () => '/v1/chat/completions',
    body: chatBody(true),
  },
  {
    name: 'responses',
    errors: 'responses',
    stream: false,
    modelIn: 'body',
    path: () => '/v1/responses',
    body: responsesBody(false),
  },
  {
    name: 'responses stream',
    errors: 'responses',
    stream: true,
    modelIn: 'body',
    path: () => '/v1/responses',
    body: responsesBody(true),
  },
  {
    name: 'messages',
    errors: 'anthropic',
    stream: false,
    modelIn: 'body',
    path: () => '/v1/messages',
    body: messagesBody(false, false),
    headers: { 'anthropic-version': '2023-06-01' },
  },
  {
    name: 'messages stream',
    errors: 'anthropic',
    stream: true,
    modelIn: 'body',
    path: () => '/v1/messages?beta=true',
    body: messagesBody(true, false),
    headers: { 'anthropic-version': '2023-06-01' },
  },
  {
    name: 'count_tokens',
    errors: 'anthropic',
    stream: false,
    modelIn: 'body',
    path: () => '/v1/messages/count_tokens',
    body: messagesBody(false, true),
    headers: { 'anthropic-version': '2023-06-01' },
  },
  {
    name: 'gemini generateContent',
    errors: 'gemini',
    stream: false,
    modelIn: 'path',
    path: geminiPath('generateContent'),
    body: geminiBody,
  },
  {
    name: 'gemini streamGenerateContent',
    errors: 'gemini',
    stream: true,
    modelIn: 'path',
    path: (model) => `${geminiPath('streamGenerateContent')(model)}?alt=sse`,
    body: geminiBody,
  },
  {
    name: 'gemini countTokens',
    errors: 'gemini',
    stream: false,
    modelIn: 'path',
    path: geminiPath('countTokens'),
    body: () => ({ generateContentRequest: { model: 'models/x', ...geminiBody() } }),
  },
  {
    name: 'embeddings',
    errors: 'openai',
    stream: false,
    modelIn: 'body',
    path: () => '/v1/embeddings',
    body: (model) => ({
      model,
      input: ['The gateway routes calls.', 'It meters them — 🧮'],
      dimensions: 8,
      encoding_format: 'base64',
      user: 'user-1',
    }),
  },
  {
    name: 'gemini embedContent',
    errors: 'gemini',
    stream: false,
    modelIn: 'path',
    path: geminiPath('embedContent'),
    body: () => ({
      content: { parts: [{ text: 'The gateway routes calls.' }] },
      taskType: 'RETRIEVAL_DOCUMENT',
      title: 'Gateway',
      outputDimensionality: 8,
    }),
  },
  {
    name: 'gemini batchEmbedContents',
    errors: 'gemini',
    stream: false,
    modelIn: 'path',
    path: geminiPath('batchEmbedContents'),
    body: () => ({
      requests: ['The gateway routes calls.', 'It meters them — 🧮'].map((text) => ({
        model: 'models/x',
        content: { role: 'user', parts: [{ text }] },
        taskType: 'RETRIEVAL_QUERY',
        outputDimensionality: 8,
      })),
    }),
  },
]
