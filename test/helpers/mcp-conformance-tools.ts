import { completable } from '@modelcontextprotocol/sdk/server/completable.js'
import { type McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js'
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js'
import {
  CreateMessageResultSchema,
  ElicitResultSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  type ServerNotification,
  type ServerRequest,
} from '@modelcontextprotocol/sdk/types.js'
import * as z from 'zod'

/** A 1×1 PNG, base64: the image the conformance scenarios ask for. */
const png =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=='
/** A WAV header with no samples (44 bytes), base64. */
const wav = 'UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQAAAAA='

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] })

/**
 * Registers on `server` the tools, prompts and resources the MCP conformance suite's server
 * scenarios call (`@modelcontextprotocol/conformance`, names `test_*` and `test://…`), written
 * from the scenarios' stated requirements; `scripts/mcp-conformance.mjs` serves them behind the
 * gateway. Server requests (sampling, elicitation) go through `extra.sendRequest`, so they travel
 * in the stream of the call that asked, as the gateway relays them.
 */
export function registerConformanceTools(server: McpServer): void {
  server.server.registerCapabilities({ logging: {}, resources: { subscribe: true } })
  server.registerTool('test_simple_text', { description: 'Text' }, async () =>
    text('This is a simple text response for testing.'),
  )
  server.registerTool('test_image_content', { description: 'Image' }, async () => ({
    content: [{ type: 'image', data: png, mimeType: 'image/png' }],
  }))
  server.registerTool('test_audio_content', { description: 'Audio' }, async () => ({
    content: [{ type: 'audio', data: wav, mimeType: 'audio/wav' }],
  }))
  server.registerTool('test_embedded_resource', { description: 'Embedded' }, async () => ({
    content: [
      {
        type: 'resource',
        resource: {
          uri: 'test://embedded-resource',
          mimeType: 'text/plain',
          text: 'This is an embedded resource content.',
        },
      },
    ],
  }))
  server.registerTool('test_multiple_content_types', { description: 'Mixed' }, async () => ({
    content: [
      { type: 'text', text: 'Multiple content types test:' },
      { type: 'image', data: png, mimeType: 'image/png' },
      {
        type: 'resource',
        resource: {
          uri: 'test://mixed-content-resource',
          mimeType: 'application/json',
          text: '{"test":"data","value":123}',
        },
      },
    ],
  }))
  server.registerTool('test_tool_with_logging', { description: 'Logs' }, async (extra) => {
    for (const [at, data] of [
      [0, 'Tool execution started'],
      [50, 'Tool processing data'],
      [50, 'Tool execution completed'],
    ] as const) {
      await sleep(at)
      await extra.sendNotification({
        method: 'notifications/message',
        params: { level: 'info', data },
      })
    }
    return text('Tool with logging executed successfully')
  })
  server.registerTool('test_tool_with_progress', { description: 'Progress' }, async (extra) => {
    const token = extra._meta?.progressToken
    for (const progress of [0, 50, 100]) {
      if (progress > 0) await sleep(50)
      if (token !== undefined) {
        await extra.sendNotification({
          method: 'notifications/progress',
          params: { progressToken: token, progress, total: 100 },
        })
      }
    }
    return text('Tool with progress executed successfully')
  })
  server.registerTool('test_error_handling', { description: 'Fails' }, async () => ({
    isError: true,
    content: [{ type: 'text', text: 'This tool intentionally returns an error for testing' }],
  }))
  server.registerTool(
    'test_sampling',
    { description: 'Samples', inputSchema: { prompt: z.string() } },
    async ({ prompt }, extra) => {
      const result = await extra.sendRequest(
        {
          method: 'sampling/createMessage',
          params: {
            messages: [{ role: 'user', content: { type: 'text', text: prompt } }],
            maxTokens: 100,
          },
        },
        CreateMessageResultSchema,
      )
      const content = result.content as { type: string; text?: string }
      return text(`LLM response: ${content.type === 'text' ? content.text : content.type}`)
    },
  )
  const elicit = async (
    extra: RequestHandlerExtra<ServerRequest, ServerNotification>,
    message: string,
    properties: Record<string, unknown>,
    required: string[] = [],
  ) => {
    const result = await extra.sendRequest(
      {
        method: 'elicitation/create',
        params: { message, requestedSchema: { type: 'object', properties, required } as never },
      },
      ElicitResultSchema,
    )
    return text(
      `Elicitation completed: action=${result.action}, content=${JSON.stringify(result.content ?? {})}`,
    )
  }
  server.registerTool(
    'test_elicitation',
    { description: 'Elicits', inputSchema: { message: z.string() } },
    async ({ message }, extra) =>
      elicit(
        extra,
        message,
        {
          username: { type: 'string', description: "User's response" },
          email: { type: 'string', description: "User's email address" },
        },
        ['username', 'email'],
      ),
  )
  server.registerTool(
    'test_elicitation_sep1034_defaults',
    { description: 'Defaults' },
    async (extra) =>
      elicit(extra, 'Please accept with defaults', {
        name: { type: 'string', description: 'User name', default: 'John Doe' },
        age: { type: 'integer', description: 'User age', default: 30 },
        score: { type: 'number', description: 'User score', default: 95.5 },
        status: { type: 'string', enum: ['active', 'inactive', 'pending'], default: 'active' },
        verified: { type: 'boolean', description: 'Verification status', default: true },
      }),
  )
  const titled = (prefix: string, names: string[]) =>
    names.map((title, at) => ({ const: `value${at + 1}`, title: `${title} ${prefix}` }))
  server.registerTool('test_elicitation_sep1330_enums', { description: 'Enums' }, async (extra) =>
    elicit(extra, 'Choose', {
      untitledSingle: { type: 'string', enum: ['option1', 'option2', 'option3'] },
      titledSingle: { type: 'string', oneOf: titled('Option', ['First', 'Second', 'Third']) },
      legacyEnum: {
        type: 'string',
        enum: ['opt1', 'opt2', 'opt3'],
        enumNames: ['Option One', 'Option Two', 'Option Three'],
      },
      untitledMulti: {
        type: 'array',
        items: { type: 'string', enum: ['option1', 'option2', 'option3'] },
      },
      titledMulti: {
        type: 'array',
        items: { anyOf: titled('Choice', ['First', 'Second', 'Third']) },
      },
    }),
  )
  registerConformancePrompts(server)
  registerConformanceResources(server)
}

function registerConformancePrompts(server: McpServer): void {
  server.registerPrompt('test_simple_prompt', { description: 'Simple' }, () => ({
    messages: [
      { role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } },
    ],
  }))
  server.registerPrompt(
    'test_prompt_with_arguments',
    {
      description: 'Arguments',
      argsSchema: {
        arg1: completable(z.string(), (value) =>
          ['paris', 'park', 'party'].filter((v) => v.startsWith(value)),
        ),
        arg2: z.string(),
      },
    },
    ({ arg1, arg2 }) => ({
      messages: [
        {
          role: 'user',
          content: { type: 'text', text: `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'` },
        },
      ],
    }),
  )
  server.registerPrompt(
    'test_prompt_with_embedded_resource',
    { description: 'Embedded resource', argsSchema: { resourceUri: z.string() } },
    ({ resourceUri }) => ({
      messages: [
        {
          role: 'user',
          content: {
            type: 'resource',
            resource: {
              uri: resourceUri,
              mimeType: 'text/plain',
              text: 'Embedded resource content for testing.',
            },
          },
        },
        {
          role: 'user',
          content: { type: 'text', text: 'Please process the embedded resource above.' },
        },
      ],
    }),
  )
  server.registerPrompt('test_prompt_with_image', { description: 'Image' }, () => ({
    messages: [
      { role: 'user', content: { type: 'image', data: png, mimeType: 'image/png' } },
      { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
    ],
  }))
}

function registerConformanceResources(server: McpServer): void {
  server.registerResource(
    'static-text',
    'test://static-text',
    { mimeType: 'text/plain' },
    async (uri) => ({
      contents: [
        {
          uri: uri.href,
          mimeType: 'text/plain',
          text: 'This is the content of the static text resource.',
        },
      ],
    }),
  )
  server.registerResource(
    'static-binary',
    'test://static-binary',
    { mimeType: 'image/png' },
    async (uri) => ({
      contents: [{ uri: uri.href, mimeType: 'image/png', blob: png }],
    }),
  )
  server.registerResource(
    'watched',
    'test://watched-resource',
    { mimeType: 'text/plain' },
    async (uri) => ({
      contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'Watched resource content.' }],
    }),
  )
  server.registerResource(
    'template',
    new ResourceTemplate('test://template/{id}/data', { list: undefined }),
    { mimeType: 'application/json' },
    async (uri, { id }) => ({
      contents: [
        {
          uri: uri.href,
          mimeType: 'application/json',
          text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }),
        },
      ],
    }),
  )
  // Subscriptions are accepted and tracked; nothing here changes, so no update is ever sent.
  const subscribed = new Set<string>()
  server.server.setRequestHandler(SubscribeRequestSchema, async (request) => {
    subscribed.add(request.params.uri)
    return {}
  })
  server.server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
    subscribed.delete(request.params.uri)
    return {}
  })
}
