/**
 * The call guide's snippets: ready-to-paste client settings with the base address, a key and a
 * model filled in. Pure functions over strings, shared by the console page (which renders them)
 * and the tests (which run every one of them against a live gateway).
 *
 * @module
 */

import { mcpSnippets } from './mcp-snippets'
import { js, py, sh, toml } from './quote'
import type { Snippet } from './snippet'

/** What the guide fills in. */
export type GuideInput = {
  /** The base address without `/v1`: `https://llm.example.com` (plus the gateway's `basePath`). */
  baseUrl: string
  apiKey: string
  model: string
  /**
   * The gateway's MCP endpoint (`<baseUrl><mcp.path>`), when the gateway has `mcp` configured: the
   * guide then shows how to add it to the coding agents and the AI SDK's MCP client.
   */
  mcpUrl?: string | undefined
}

export type { Snippet } from './snippet'

/** The key the guide shows until one is picked: it starts with `sk-` as keys do, and fails. */
export const placeholderKey = 'sk-YOUR_KEY'

/** The prompt every snippet sends. */
export const guidePrompt = 'Hello!'

/** Every snippet of the guide, in the order the page shows them. */
export function guideSnippets(input: GuideInput): Snippet[] {
  const { baseUrl, apiKey, model, mcpUrl } = input
  const v1 = `${baseUrl}/v1`
  const chatBody = JSON.stringify({ model, messages: [{ role: 'user', content: guidePrompt }] })
  const messagesBody = JSON.stringify({
    model,
    max_tokens: 1024,
    messages: [{ role: 'user', content: guidePrompt }],
  })
  const snippets: Snippet[] = [
    {
      id: 'curl-chat',
      section: 'HTTP',
      title: 'curl: chat completions',
      language: 'sh',
      code: `curl ${sh(`${v1}/chat/completions`)} \\
  -H ${sh(`Authorization: Bearer ${apiKey}`)} \\
  -H 'Content-Type: application/json' \\
  -d ${sh(chatBody)}`,
    },
    {
      id: 'curl-messages',
      section: 'HTTP',
      title: 'curl: messages',
      language: 'sh',
      code: `curl ${sh(`${v1}/messages`)} \\
  -H ${sh(`x-api-key: ${apiKey}`)} \\
  -H 'anthropic-version: 2023-06-01' \\
  -H 'Content-Type: application/json' \\
  -d ${sh(messagesBody)}`,
    },
    {
      id: 'curl-usage',
      section: 'HTTP',
      title: "curl: this key's usage and limits",
      language: 'sh',
      code: `curl ${sh(`${v1}/usage`)} -H ${sh(`Authorization: Bearer ${apiKey}`)}`,
      note: 'GET /v1/usage answers for the calling key only.',
    },
    {
      id: 'openai-ts',
      section: 'OpenAI SDK',
      title: 'openai (TypeScript)',
      language: 'ts',
      code: `import OpenAI from 'openai'

const client = new OpenAI({ baseURL: ${js(v1)}, apiKey: ${js(apiKey)} })
const completion = await client.chat.completions.create({
  model: ${js(model)},
  messages: [{ role: 'user', content: ${js(guidePrompt)} }],
})
console.log(completion.choices[0]?.message.content)`,
      note: 'A group on Azure OpenAI takes this client too, not AzureOpenAI: the gateway holds the Azure credentials and maps the model to its deployment.',
    },
    {
      id: 'openai-python',
      section: 'OpenAI SDK',
      title: 'openai (Python)',
      language: 'python',
      code: `from openai import OpenAI

client = OpenAI(base_url=${py(v1)}, api_key=${py(apiKey)})
completion = client.chat.completions.create(
    model=${py(model)},
    messages=[{"role": "user", "content": ${py(guidePrompt)}}],
)
print(completion.choices[0].message.content)`,
    },
    {
      id: 'anthropic-ts',
      section: 'Anthropic SDK',
      title: '@anthropic-ai/sdk (TypeScript)',
      language: 'ts',
      code: `import Anthropic from '@anthropic-ai/sdk'

const client = new Anthropic({ baseURL: ${js(baseUrl)}, apiKey: ${js(apiKey)} })
const message = await client.messages.create({
  model: ${js(model)},
  max_tokens: 1024,
  messages: [{ role: 'user', content: ${js(guidePrompt)} }],
})
for (const block of message.content) if (block.type === 'text') console.log(block.text)`,
      note: 'The Anthropic SDKs take the address without /v1.',
    },
    {
      id: 'anthropic-python',
      section: 'Anthropic SDK',
      title: 'anthropic (Python)',
      language: 'python',
      code: `import anthropic

client = anthropic.Anthropic(base_url=${py(baseUrl)}, api_key=${py(apiKey)})
message = client.messages.create(
    model=${py(model)},
    max_tokens=1024,
    messages=[{"role": "user", "content": ${py(guidePrompt)}}],
)
print(message.content[0].text)`,
    },
    {
      id: 'genai-ts',
      section: 'Google Gen AI SDK',
      title: '@google/genai (TypeScript)',
      language: 'ts',
      code: `import { GoogleGenAI } from '@google/genai'

const ai = new GoogleGenAI({ apiKey: ${js(apiKey)}, httpOptions: { baseUrl: ${js(baseUrl)} } })
const response = await ai.models.generateContent({ model: ${js(model)}, contents: ${js(guidePrompt)} })
console.log(response.text)`,
      note: 'The Gemini SDKs call /v1beta under the address themselves.',
    },
    {
      id: 'genai-python',
      section: 'Google Gen AI SDK',
      title: 'google-genai (Python)',
      language: 'python',
      code: `from google import genai
from google.genai import types

client = genai.Client(api_key=${py(apiKey)}, http_options=types.HttpOptions(base_url=${py(baseUrl)}))
response = client.models.generate_content(model=${py(model)}, contents=${py(guidePrompt)})
print(response.text)`,
    },
    {
      id: 'responses-ts',
      section: 'Responses API',
      title: 'openai Responses API (TypeScript)',
      language: 'ts',
      code: `import OpenAI from 'openai'

const client = new OpenAI({ baseURL: ${js(v1)}, apiKey: ${js(apiKey)} })
const response = await client.responses.create({ model: ${js(model)}, input: ${js(guidePrompt)} })
console.log(response.output_text)`,
    },
    {
      id: 'responses-python',
      section: 'Responses API',
      title: 'openai Responses API (Python)',
      language: 'python',
      code: `from openai import OpenAI

client = OpenAI(base_url=${py(v1)}, api_key=${py(apiKey)})
response = client.responses.create(model=${py(model)}, input=${py(guidePrompt)})
print(response.output_text)`,
    },
    {
      id: 'claude-code',
      section: 'Coding agents',
      title: 'Claude Code (environment variables)',
      language: 'sh',
      code: `export ANTHROPIC_BASE_URL=${sh(baseUrl)}
export ANTHROPIC_AUTH_TOKEN=${sh(apiKey)}
export ANTHROPIC_MODEL=${sh(model)}
export ANTHROPIC_DEFAULT_HAIKU_MODEL=${sh(model)}
claude`,
      note: 'ANTHROPIC_DEFAULT_HAIKU_MODEL sends the background calls to a model the gateway serves too. For a group on Claude on AWS Bedrock or Vertex AI, keep these: the gateway signs for the cloud (leave CLAUDE_CODE_USE_BEDROCK and CLAUDE_CODE_USE_VERTEX unset).',
    },
    {
      id: 'codex-config',
      section: 'Coding agents',
      title: 'Codex (~/.codex/config.toml)',
      language: 'toml',
      code: `model = ${toml(model)}
model_provider = "model-gateway"

[model_providers.model-gateway]
name = "model-gateway"
base_url = ${toml(v1)}
env_key = "MODEL_GATEWAY_API_KEY"
wire_api = "responses"`,
      note: 'Codex reads the key from the variable env_key names: set it as the next snippet does.',
    },
    {
      id: 'codex-key',
      section: 'Coding agents',
      title: 'Codex: the key',
      language: 'sh',
      code: `export MODEL_GATEWAY_API_KEY=${sh(apiKey)}
codex`,
    },
    {
      id: 'gemini-cli',
      section: 'Coding agents',
      title: 'Gemini CLI (environment variables)',
      language: 'sh',
      code: `export GOOGLE_GEMINI_BASE_URL=${sh(baseUrl)}
export GEMINI_API_KEY=${sh(apiKey)}
gemini -m ${sh(model)}`,
      note: 'For a group on Gemini on Vertex AI, keep these: the gateway holds the Google credentials (leave GOOGLE_GENAI_USE_VERTEXAI unset).',
    },
    {
      id: 'ai-sdk',
      section: 'Frameworks',
      title: 'AI SDK (TypeScript)',
      language: 'ts',
      code: `import { createOpenAI } from '@ai-sdk/openai'
import { generateText } from 'ai'

const gateway = createOpenAI({ baseURL: ${js(v1)}, apiKey: ${js(apiKey)} })
const { text } = await generateText({ model: gateway(${js(model)}), prompt: ${js(guidePrompt)} })
console.log(text)`,
    },
    {
      id: 'langchain-ts',
      section: 'Frameworks',
      title: 'LangChain (TypeScript)',
      language: 'ts',
      code: `import { ChatOpenAI } from '@langchain/openai'

const model = new ChatOpenAI({
  model: ${js(model)},
  apiKey: ${js(apiKey)},
  configuration: { baseURL: ${js(v1)} },
})
const answer = await model.invoke(${js(guidePrompt)})
console.log(answer.content)`,
    },
    {
      id: 'langchain-python',
      section: 'Frameworks',
      title: 'LangChain (Python)',
      language: 'python',
      code: `from langchain_openai import ChatOpenAI

model = ChatOpenAI(model=${py(model)}, api_key=${py(apiKey)}, base_url=${py(v1)})
print(model.invoke(${py(guidePrompt)}).content)`,
    },
    {
      id: 'workflow-base-url',
      section: 'Workflow tools',
      title: 'A model node with a Base URL field',
      language: 'text',
      code: `Base URL (or API Base, Endpoint): ${v1}
API key: ${apiKey}
Model: ${model}`,
      note: 'If the model field is a fixed list, type the name by hand; if it cannot be typed, use an HTTP request node.',
    },
    {
      id: 'workflow-http',
      section: 'Workflow tools',
      title: 'A generic HTTP request node',
      language: 'text',
      code: `Method: POST
URL: ${v1}/chat/completions
Header: Authorization: Bearer ${apiKey}
Header: Content-Type: application/json
Body: ${JSON.stringify({ model, messages: [{ role: 'user', content: guidePrompt }] }, null, 2)}`,
      note: 'Start with one trigger node and this one; add mappings, branches and other actions once it answers.',
    },
  ]
  return mcpUrl === undefined ? snippets : [...snippets, ...mcpSnippets(mcpUrl, apiKey)]
}
