import Anthropic from '@anthropic-ai/sdk'
import { GoogleGenAI, Type } from '@google/genai'
import OpenAI from 'openai'
import type { GatewayHandler } from '../../../src/index'
import { fetchThrough, gatewayUrl, keys } from '../../helpers/gateway'
import type { Family } from './upstream-answers'

/** A tool call as a client SDK returns it. */
export type ToolCall = { name: string; args: unknown }

const responsesWeather = {
  type: 'function' as const,
  name: 'get_weather',
  parameters: { type: 'object', properties: { city: { type: 'string' } } },
  strict: false,
}

/** How each client SDK asks, and what it gets back. */
export type Client = {
  text(model: string): Promise<string>
  stream(model: string): Promise<string>
  tool(model: string): Promise<ToolCall>
  streamTool(model: string): Promise<ToolCall>
  toolResult(model: string): Promise<string>
  /** Sends a question with the PNG `imageBase64` attached; the answer's text. */
  image(model: string): Promise<string>
  status(model: string): Promise<number>
  /** The text received before the stream failed, and the error. */
  failing(model: string): Promise<{ text: string; error: unknown }>
}

const weather = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    parameters: { type: 'object', properties: { city: { type: 'string' } } },
  },
}
/** A 1×1 PNG, base64, that every client attaches in its own form. */
export const imageBase64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=='

const genaiSdk = () => new GoogleGenAI({ apiKey: keys.main, httpOptions: { baseUrl: gatewayUrl } })
const anthropicTool = {
  name: 'get_weather',
  input_schema: { type: 'object' as const, properties: { city: { type: 'string' } } },
}
const geminiTool = {
  functionDeclarations: [
    {
      name: 'get_weather',
      parameters: { type: Type.OBJECT, properties: { city: { type: Type.STRING } } },
    },
  ],
}

async function failure<T>(run: () => Promise<T>): Promise<unknown> {
  try {
    await run()
  } catch (error) {
    return error
  }
  return undefined
}

/** Each client protocol's official SDK, pointed at the in-process gateway. */
export function matrixClients(handler: () => GatewayHandler): Record<Family, Client> {
  const openaiSdk = () =>
    new OpenAI({
      apiKey: keys.main,
      baseURL: `${gatewayUrl}/v1`,
      fetch: fetchThrough(handler()),
      maxRetries: 0,
    })
  const anthropicSdk = () =>
    new Anthropic({
      apiKey: keys.main,
      baseURL: gatewayUrl,
      fetch: fetchThrough(handler()),
      maxRetries: 0,
    })
  return {
    openai: {
      text: async (model) =>
        (
          await openaiSdk().chat.completions.create({
            model,
            messages: [{ role: 'user', content: 'Capital?' }],
          })
        ).choices[0]?.message.content ?? '',
      stream: async (model) => {
        let text = ''
        for await (const part of await openaiSdk().chat.completions.create({
          model,
          messages: [{ role: 'user', content: 'Capital?' }],
          stream: true,
        }))
          text += part.choices[0]?.delta.content ?? ''
        return text
      },
      tool: async (model) => {
        const call = (
          await openaiSdk().chat.completions.create({
            model,
            messages: [{ role: 'user', content: 'Weather?' }],
            tools: [weather],
          })
        ).choices[0]?.message.tool_calls?.[0]
        return call?.type === 'function'
          ? { name: call.function.name, args: JSON.parse(call.function.arguments) }
          : { name: '', args: null }
      },
      streamTool: async (model) => {
        const final = await openaiSdk()
          .chat.completions.stream({
            model,
            messages: [{ role: 'user', content: 'Weather?' }],
            tools: [weather],
          })
          .finalChatCompletion()
        const call = final.choices[0]?.message.tool_calls?.[0]
        return call?.type === 'function'
          ? { name: call.function.name, args: JSON.parse(call.function.arguments) }
          : { name: '', args: null }
      },
      toolResult: async (model) =>
        (
          await openaiSdk().chat.completions.create({
            model,
            tools: [weather],
            messages: [
              { role: 'user', content: 'Weather?' },
              {
                role: 'assistant',
                content: null,
                tool_calls: [
                  {
                    id: 'call_9',
                    type: 'function',
                    function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
                  },
                ],
              },
              { role: 'tool', tool_call_id: 'call_9', content: 'sunny' },
            ],
          })
        ).choices[0]?.message.content ?? '',
      image: async (model) =>
        (
          await openaiSdk().chat.completions.create({
            model,
            messages: [
              {
                role: 'user',
                content: [
                  { type: 'text', text: 'What is this?' },
                  { type: 'image_url', image_url: { url: `data:image/png;base64,${imageBase64}` } },
                ],
              },
            ],
          })
        ).choices[0]?.message.content ?? '',
      status: async (model) =>
        (
          (await failure(() =>
            openaiSdk().chat.completions.create({
              model,
              messages: [{ role: 'user', content: 'x' }],
            }),
          )) as { status: number }
        ).status,
      failing: async (model) => {
        let text = ''
        const error = await failure(async () => {
          for await (const part of await openaiSdk().chat.completions.create({
            model,
            messages: [{ role: 'user', content: 'x' }],
            stream: true,
          }))
            text += part.choices[0]?.delta.content ?? ''
        })
        return { text, error }
      },
    },
    anthropic: {
      text: async (model) => {
        const message = await anthropicSdk().messages.create({
          model,
          max_tokens: 50,
          messages: [{ role: 'user', content: 'Capital?' }],
        })
        return message.content.map((block) => (block.type === 'text' ? block.text : '')).join('')
      },
      stream: async (model) => {
        const message = await anthropicSdk()
          .messages.stream({
            model,
            max_tokens: 50,
            messages: [{ role: 'user', content: 'Capital?' }],
          })
          .finalMessage()
        return message.content.map((block) => (block.type === 'text' ? block.text : '')).join('')
      },
      tool: async (model) => {
        const block = (
          await anthropicSdk().messages.create({
            model,
            max_tokens: 50,
            tools: [anthropicTool],
            messages: [{ role: 'user', content: 'Weather?' }],
          })
        ).content.find((item) => item.type === 'tool_use')
        return block?.type === 'tool_use'
          ? { name: block.name, args: block.input }
          : { name: '', args: null }
      },
      streamTool: async (model) => {
        const block = (
          await anthropicSdk()
            .messages.stream({
              model,
              max_tokens: 50,
              tools: [anthropicTool],
              messages: [{ role: 'user', content: 'Weather?' }],
            })
            .finalMessage()
        ).content.find((item) => item.type === 'tool_use')
        return block?.type === 'tool_use'
          ? { name: block.name, args: block.input }
          : { name: '', args: null }
      },
      toolResult: async (model) => {
        const message = await anthropicSdk().messages.create({
          model,
          max_tokens: 50,
          tools: [anthropicTool],
          messages: [
            { role: 'user', content: 'Weather?' },
            {
              role: 'assistant',
              content: [
                { type: 'tool_use', id: 'toolu_9', name: 'get_weather', input: { city: 'Paris' } },
              ],
            },
            {
              role: 'user',
              content: [{ type: 'tool_result', tool_use_id: 'toolu_9', content: 'sunny' }],
            },
          ],
        })
        return message.content.map((block) => (block.type === 'text' ? block.text : '')).join('')
      },
      image: async (model) => {
        const message = await anthropicSdk().messages.create({
          model,
          max_tokens: 50,
          messages: [
            {
              role: 'user',
              content: [
                { type: 'text', text: 'What is this?' },
                {
                  type: 'image',
                  source: { type: 'base64', media_type: 'image/png', data: imageBase64 },
                },
              ],
            },
          ],
        })
        return message.content.map((block) => (block.type === 'text' ? block.text : '')).join('')
      },
      status: async (model) =>
        (
          (await failure(() =>
            anthropicSdk().messages.create({
              model,
              max_tokens: 5,
              messages: [{ role: 'user', content: 'x' }],
            }),
          )) as { status: number }
        ).status,
      failing: async (model) => {
        let text = ''
        const stream = anthropicSdk().messages.stream({
          model,
          max_tokens: 50,
          messages: [{ role: 'user', content: 'x' }],
        })
        stream.on('text', (delta) => void (text += delta))
        const error = await failure(() => stream.finalMessage())
        return { text, error }
      },
    },
    gemini: {
      text: async (model) =>
        (await genaiSdk().models.generateContent({ model, contents: 'Capital?' })).text ?? '',
      stream: async (model) => {
        let text = ''
        for await (const part of await genaiSdk().models.generateContentStream({
          model,
          contents: 'Capital?',
        }))
          text += part.text ?? ''
        return text
      },
      tool: async (model) => {
        const call = (
          await genaiSdk().models.generateContent({
            model,
            contents: 'Weather?',
            config: { tools: [geminiTool] },
          })
        ).functionCalls?.[0]
        return { name: call?.name ?? '', args: call?.args ?? null }
      },
      streamTool: async (model) => {
        let found: ToolCall = { name: '', args: null }
        for await (const part of await genaiSdk().models.generateContentStream({
          model,
          contents: 'Weather?',
          config: { tools: [geminiTool] },
        })) {
          const call = part.functionCalls?.[0]
          if (call !== undefined) found = { name: call.name ?? '', args: call.args ?? null }
        }
        return found
      },
      toolResult: async (model) =>
        (
          await genaiSdk().models.generateContent({
            model,
            config: { tools: [geminiTool] },
            contents: [
              { role: 'user', parts: [{ text: 'Weather?' }] },
              {
                role: 'model',
                parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } } }],
              },
              {
                role: 'user',
                parts: [
                  { functionResponse: { name: 'get_weather', response: { result: 'sunny' } } },
                ],
              },
            ],
          })
        ).text ?? '',
      image: async (model) =>
        (
          await genaiSdk().models.generateContent({
            model,
            contents: [
              {
                role: 'user',
                parts: [
                  { text: 'What is this?' },
                  { inlineData: { mimeType: 'image/png', data: imageBase64 } },
                ],
              },
            ],
          })
        ).text ?? '',
      status: async (model) =>
        (
          (await failure(() => genaiSdk().models.generateContent({ model, contents: 'x' }))) as {
            status: number
          }
        ).status,
      failing: async (model) => {
        let text = ''
        const error = await failure(async () => {
          for await (const part of await genaiSdk().models.generateContentStream({
            model,
            contents: 'x',
          }))
            text += part.text ?? ''
        })
        return { text, error }
      },
    },
    responses: {
      text: async (model) =>
        (await openaiSdk().responses.create({ model, input: 'Capital?' })).output_text,
      stream: async (model) => {
        const final = await openaiSdk()
          .responses.stream({ model, input: 'Capital?' })
          .finalResponse()
        return final.output_text
      },
      tool: async (model) => {
        const call = (
          await openaiSdk().responses.create({
            model,
            input: 'Weather?',
            tools: [responsesWeather],
          })
        ).output.find((item) => item.type === 'function_call')
        return call?.type === 'function_call'
          ? { name: call.name, args: JSON.parse(call.arguments) }
          : { name: '', args: null }
      },
      streamTool: async (model) => {
        const final = await openaiSdk()
          .responses.stream({ model, input: 'Weather?', tools: [responsesWeather] })
          .finalResponse()
        const call = final.output.find((item) => item.type === 'function_call')
        return call?.type === 'function_call'
          ? { name: call.name, args: JSON.parse(call.arguments) }
          : { name: '', args: null }
      },
      toolResult: async (model) =>
        (
          await openaiSdk().responses.create({
            model,
            tools: [responsesWeather],
            input: [
              { role: 'user', content: 'Weather?' },
              {
                type: 'function_call',
                call_id: 'call_9',
                name: 'get_weather',
                arguments: '{"city":"Paris"}',
              },
              { type: 'function_call_output', call_id: 'call_9', output: 'sunny' },
            ],
          })
        ).output_text,
      image: async (model) =>
        (
          await openaiSdk().responses.create({
            model,
            input: [
              {
                role: 'user',
                content: [
                  { type: 'input_text', text: 'What is this?' },
                  {
                    type: 'input_image',
                    image_url: `data:image/png;base64,${imageBase64}`,
                    detail: 'auto',
                  },
                ],
              },
            ],
          })
        ).output_text,
      status: async (model) =>
        (
          (await failure(() => openaiSdk().responses.create({ model, input: 'x' }))) as {
            status: number
          }
        ).status,
      failing: async (model) => {
        let text = ''
        const error = await failure(async () => {
          for await (const event of await openaiSdk().responses.create({
            model,
            input: 'x',
            stream: true,
          }))
            if (event.type === 'response.output_text.delta') text += event.delta
        })
        return { text, error }
      },
    },
  }
}
