/**
 * CPU per call of an Azure OpenAI upstream against a plain OpenAI one: the HTTP provider's
 * prepare (URL, headers) and sign (the cached Entra token as a bearer) with a `fetch` that answers
 * at once, so only the gateway's own work is timed. Run: `npx tsx bench/azure-sign-cost.ts`.
 */
import { createHttpProvider } from '../src/upstream/http-provider'
import { azureKind } from '../src/upstream/azure/kind'
import type { UpstreamCall } from '../src/upstream/provider'

const answer = new Response('{}')
const fetchStub = (async () => answer) as unknown as typeof fetch
const tokenFetch = (async () =>
  Response.json({
    access_token: 'eyJ0eXAiOiJKV1QifQ.bench',
    expires_in: 3599,
  })) as unknown as typeof fetch

const body = JSON.stringify({ model: 'prod-mini', messages: [{ role: 'user', content: 'Hello!' }] })
const call = {
  operation: 'chat-completions',
  model: 'prod-mini',
  body,
  stream: false,
  headers: new Headers({ 'content-type': 'application/json' }),
  signal: new AbortController().signal,
} as unknown as UpstreamCall

const plain = createHttpProvider({
  id: 'openai',
  protocol: 'openai',
  baseUrl: 'https://api.openai.com/v1',
  apiKey: 'sk-bench',
  fetch: fetchStub,
})
const context = (fetch: typeof globalThis.fetch) => ({
  id: 'azure',
  protocol: 'openai' as const,
  now: Date.now,
  fetch,
})
// The token endpoint and the resource share the stub: the first call fetches the token, then it is cached.
let first = true
const either = (async (input: string | URL | Request, init?: RequestInit) => {
  if (first && String(input).includes('/oauth2/')) {
    first = false
    return tokenFetch(input, init)
  }
  return answer
}) as typeof fetch
const entra = azureKind.create(
  {
    provider: 'azure',
    baseUrl: 'https://r.openai.azure.com',
    entra: {
      tenantId: 't',
      clientId: 'c',
      clientSecret: 's',
      authorityHost: 'https://login.example',
    },
  },
  context(either),
)
const keyed = azureKind.create(
  {
    provider: 'azure',
    baseUrl: 'https://r.openai.azure.com',
    apiVersion: '2024-10-21',
    apiKey: 'k',
  },
  context(fetchStub),
)

async function mean(
  provider: { send(call: UpstreamCall): Promise<unknown> },
  n: number,
): Promise<number> {
  for (let i = 0; i < 2000; i++) await provider.send(call)
  const start = process.cpuUsage()
  for (let i = 0; i < n; i++) await provider.send(call)
  const used = process.cpuUsage(start)
  return (used.user + used.system) / n
}

const n = 100_000
for (const [name, provider] of [
  ['openai (api key)', plain],
  ['azure (api-key, deployment URL)', keyed],
  ['azure (Entra token, cached)', entra],
] as const) {
  console.log(
    `${name}: ${(await mean(provider, n)).toFixed(2)} µs CPU per call (prepare + sign + stub send)`,
  )
}
