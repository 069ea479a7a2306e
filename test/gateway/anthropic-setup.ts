import { readFileSync } from 'node:fs'
import Anthropic from '@anthropic-ai/sdk'
import { afterAll, afterEach, beforeAll } from 'vitest'
import {
  anthropicApiKey,
  anthropicBaseUrl,
  anthropicHandlers,
  anthropicMessage,
} from '../helpers/anthropic-upstream'
import { buildGateway, fetchThrough, gatewayUrl, keys } from '../helpers/gateway'
import {
  createMockUpstream,
  upstreamApiKey,
  upstreamBaseUrl,
  type UpstreamBehaviour,
  type UpstreamCallRecord,
} from '../helpers/upstream'

/**
 * Shared setup of the Anthropic tests: an msw server with an OpenAI upstream (`openai`) and an
 * Anthropic one (`anthropicCalls`, answering as `upstreams.anthropic` says), and a gateway with an
 * `anthropic` group `claude` and an `openai` group `gpt`. Importing it registers the hooks in the
 * importing test file.
 */
export const openai = createMockUpstream()
export const anthropicCalls: UpstreamCallRecord[] = []
const defaultAnswer = (): UpstreamBehaviour => ({
  kind: 'json',
  body: anthropicMessage([{ type: 'text', text: 'Hi from Claude' }]),
})

/** How the mocked Anthropic upstream answers; tests set `upstreams.anthropic`. */
export const upstreams: { anthropic: UpstreamBehaviour } = { anthropic: defaultAnswer() }

openai.server.use(
  ...anthropicHandlers({ calls: anthropicCalls, behaviour: () => upstreams.anthropic }),
)
beforeAll(() => openai.server.listen({ onUnhandledRequest: 'error' }))
afterAll(() => openai.server.close())
afterEach(() => {
  upstreams.anthropic = defaultAnswer()
})

/** A fixture transcript's text. */
export const fixture = (name: string) =>
  readFileSync(new URL(`../fixtures/${name}`, import.meta.url), 'utf8')
/** A transcript cut into its frames. */
export const framesOf = (text: string) =>
  text.split(/(?<=\n\n)/).filter((frame) => frame.trim() !== '')
/** The last body the Anthropic upstream received. */
export const lastAnthropicBody = () =>
  JSON.parse(anthropicCalls.at(-1)!.body) as Record<string, any>

/** A gateway with the `claude` (anthropic) and `gpt` (openai) groups. */
export function gateway() {
  return buildGateway({
    groups: [
      {
        id: 'claude',
        protocol: 'anthropic',
        models: ['claude-sonnet', { name: 'sonnet', upstreamModel: 'claude-sonnet-4-5' }],
        upstreams: [{ baseUrl: anthropicBaseUrl, apiKey: anthropicApiKey }],
      },
      {
        id: 'gpt',
        protocol: 'openai',
        models: ['gpt-4o-mini', 'deepseek-chat'],
        upstreams: [{ baseUrl: upstreamBaseUrl, apiKey: upstreamApiKey }],
      },
    ],
    keys: [{ key: keys.main }, { key: keys.limited, quota: { tokens: 30 } }],
  })
}

/** The official Anthropic SDK, pointed at the in-process gateway. */
export function anthropicClient(
  handler: ReturnType<typeof gateway>['gateway'],
  apiKey: string = keys.main,
) {
  return new Anthropic({ apiKey, baseURL: gatewayUrl, fetch: fetchThrough(handler), maxRetries: 0 })
}
