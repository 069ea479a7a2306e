import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { azureAnswer, promptFilterRefusal } from './azure-answers'
import {
  checkOpenAIEmbeddings,
  fakeTokens,
  fakeVector,
  openAIEmbeddingModels,
} from './embedding-fakes'
import { checkOpenAIRequest, openAIModelAnswer } from './openai-fake'
import { checkResponsesRequest, responsesModelAnswer } from './responses-fake'

type Body = Record<string, any>

/** The tokens the Entra and managed-identity fakes issued, with when each expires (epoch ms). */
export type TokenRegistry = Map<string, number>

/** The scope every Azure OpenAI token is asked for. */
export const cognitiveScope = 'https://cognitiveservices.azure.com/.default'

/** A loopback HTTP server, started, with its origin. */
export type Loopback = { server: Server; origin: string; close(): Promise<void> }

async function listen(handler: (req: IncomingMessage, res: ServerResponse, body: string) => void) {
  const server = createServer((req, res) => {
    const parts: Buffer[] = []
    req.on('data', (part: Buffer) => parts.push(part))
    req.on('end', () => handler(req, res, Buffer.concat(parts).toString('utf8')))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    })
  return { server, origin, close }
}

function json(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(JSON.stringify(body))
}

/**
 * Entra ID's token endpoint, by its rules: `POST /{tenant}/oauth2/v2.0/token`, a form with
 * `grant_type=client_credentials`, the registered client and secret and a `.default` scope; a wrong
 * secret is Entra's 401 `invalid_client` (AADSTS7000215). It counts fetches and issues tokens that
 * live `lifetimeSeconds` (`expires_in`), recorded in `tokens`.
 */
export async function startEntraFake(options: {
  tenantId: string
  clientId: string
  clientSecret: string
  tokens: TokenRegistry
  lifetimeSeconds?: number
  /** Delays each answer, so that a burst of calls meets one fetch in flight. */
  delayMs?: number
}) {
  let fetches = 0
  const loopback = await listen((req, res, text) => {
    fetches += 1
    const form = new URLSearchParams(text)
    const path = `/${options.tenantId}/oauth2/v2.0/token`
    const answer = () => {
      if (req.method !== 'POST' || req.url !== path)
        return json(res, 404, {
          error: 'invalid_request',
          error_description: 'AADSTS90002: Tenant not found.',
        })
      if (!String(req.headers['content-type']).startsWith('application/x-www-form-urlencoded'))
        return json(res, 400, {
          error: 'invalid_request',
          error_description:
            "AADSTS900144: The request body must contain the following parameter: 'grant_type'.",
        })
      if (form.get('grant_type') !== 'client_credentials')
        return json(res, 400, {
          error: 'unsupported_grant_type',
          error_description: 'AADSTS70003: The app requested an unsupported grant type.',
        })
      if (form.get('client_id') !== options.clientId)
        return json(res, 400, {
          error: 'unauthorized_client',
          error_description: `AADSTS700016: Application with identifier '${form.get('client_id')}' was not found in the directory.`,
        })
      if (form.get('client_secret') !== options.clientSecret)
        return json(res, 401, {
          error: 'invalid_client',
          error_description: 'AADSTS7000215: Invalid client secret provided.',
        })
      if (form.get('scope') !== cognitiveScope)
        return json(res, 400, {
          error: 'invalid_scope',
          error_description:
            "AADSTS70011: The provided value for the input parameter 'scope' is not valid.",
        })
      const lifetime = options.lifetimeSeconds ?? 3599
      const token = `eyJ0eXAiOiJKV1QifQ.entra-${fetches}-${Math.random().toString(36).slice(2)}`
      options.tokens.set(token, Date.now() + lifetime * 1000)
      json(res, 200, {
        token_type: 'Bearer',
        expires_in: lifetime,
        ext_expires_in: lifetime,
        access_token: token,
      })
    }
    if (options.delayMs === undefined) answer()
    else setTimeout(answer, options.delayMs)
  })
  return {
    ...loopback,
    get fetches() {
      return fetches
    },
  }
}

/**
 * Managed identity's endpoints: App Service's (`GET /msi/token?resource=…&api-version=2019-08-01`,
 * which refuses a request without the right `X-IDENTITY-HEADER`) and the instance metadata
 * service's (`GET /metadata/identity/oauth2/token?api-version=2018-02-01&resource=…`, which refuses
 * one without `Metadata: true`). Tokens say `expires_on` in epoch seconds, as a string.
 */
export async function startManagedIdentityFake(options: { header: string; tokens: TokenRegistry }) {
  let fetches = 0
  const loopback = await listen((req, res) => {
    fetches += 1
    const url = new URL(req.url ?? '/', 'http://fake')
    const issue = () => {
      const token = `eyJ0eXAiOiJKV1QifQ.mi-${fetches}`
      const expiresOn = Math.floor(Date.now() / 1000) + 86_399
      options.tokens.set(token, expiresOn * 1000)
      json(res, 200, {
        access_token: token,
        expires_on: String(expiresOn),
        resource: url.searchParams.get('resource'),
        token_type: 'Bearer',
      })
    }
    if (url.searchParams.get('resource') !== 'https://cognitiveservices.azure.com')
      return json(res, 400, { error: 'invalid_resource' })
    if (url.pathname === '/msi/token') {
      if (url.searchParams.get('api-version') !== '2019-08-01')
        return json(res, 400, { error: 'invalid_request' })
      if (req.headers['x-identity-header'] !== options.header)
        return json(res, 401, {
          error: 'unauthorized',
          error_description: 'X-IDENTITY-HEADER is missing or wrong',
        })
      return issue()
    }
    if (url.pathname === '/metadata/identity/oauth2/token') {
      if (url.searchParams.get('api-version') !== '2018-02-01')
        return json(res, 400, { error: 'invalid_request' })
      if (req.headers['metadata'] !== 'true')
        return json(res, 400, {
          error: 'invalid_request',
          error_description: 'Required metadata header not specified',
        })
      return issue()
    }
    json(res, 404, { error: 'not_found' })
  })
  return {
    ...loopback,
    get fetches() {
      return fetches
    },
  }
}

/** A request the Azure fake received. */
export type AzureCall = { path: string; headers: IncomingMessage['headers']; body: Body }

const keyRefused = {
  error: {
    code: '401',
    message:
      'Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.',
  },
}
const tokenRefused = {
  error: {
    code: '401',
    message:
      'Unauthorized. Access token is missing, invalid, audience is incorrect (https://cognitiveservices.azure.com), or have expired.',
  },
}

/**
 * An Azure OpenAI resource by its rules: the v1 API (`/openai/v1/chat/completions`, `/responses`,
 * `/embeddings`, the deployment as `model`, no `api-version`) and the deployment URLs
 * (`/openai/deployments/{d}/chat/completions|embeddings`, `api-version` required: Azure's 404
 * without it); `api-key` or a bearer token from `tokens` that has not expired (Azure's own 401s
 * otherwise, an empty `Bearer` included); deployments mapped to models, whose requests must pass
 * OpenAI's own rules; a prompt with `BLOCKME` is refused by the content filter, an answer to
 * `FILTEROUT` is cut by it; streams begin with the prompt filter's `choices: []` chunk.
 */
export async function startAzureFake(options: {
  deployments: Record<string, string>
  apiKey?: string
  tokens: TokenRegistry
}) {
  const calls: AzureCall[] = []
  const loopback = await listen((req, res, text) => {
    const url = new URL(req.url ?? '/', 'http://fake')
    let body: Body = {}
    try {
      body = JSON.parse(text) as Body
    } catch {
      return json(res, 400, { error: { code: 'BadRequest', message: 'Invalid JSON body.' } })
    }
    calls.push({ path: `${url.pathname}${url.search}`, headers: req.headers, body })
    const key = req.headers['api-key']
    const bearer = req.headers['authorization']
    if (key !== undefined) {
      if (key !== options.apiKey) return json(res, 401, keyRefused)
    } else {
      const token =
        typeof bearer === 'string' && bearer.startsWith('Bearer ') ? bearer.slice(7) : ''
      const expires = options.tokens.get(token)
      if (token === '' || expires === undefined || expires <= Date.now())
        return json(res, 401, tokenRefused)
    }
    const v1 = /^\/openai\/v1\/(chat\/completions|responses|embeddings)$/.exec(url.pathname)
    const dated = /^\/openai\/deployments\/([^/]+)\/(chat\/completions|embeddings)$/.exec(
      url.pathname,
    )
    const version = url.searchParams.get('api-version')
    let operation: string
    let deployment: string
    if (v1 !== null) {
      if (version !== null)
        return json(res, 400, {
          error: {
            code: 'BadRequest',
            message: `api-version '${version}' is not supported on the v1 API.`,
          },
        })
      operation = v1[1]!
      deployment = String(body['model'] ?? '')
    } else if (dated !== null) {
      if (version === null)
        return json(res, 404, { error: { code: '404', message: 'Resource not found' } })
      operation = dated[2]!
      deployment = decodeURIComponent(dated[1]!)
    } else {
      return json(res, 404, { error: { code: '404', message: 'Resource not found' } })
    }
    const model = options.deployments[deployment]
    if (model === undefined)
      return json(res, 404, {
        error: {
          code: 'DeploymentNotFound',
          message:
            'The API deployment for this resource does not exist. If you created the deployment within the last 5 minutes, please wait a moment and try again.',
        },
      })
    const asModel = { ...body, model }
    const problem =
      operation === 'embeddings'
        ? openAIEmbeddingModels[model] === undefined
          ? {
              status: 400,
              body: {
                error: {
                  code: 'OperationNotSupported',
                  message: 'The embeddings operation does not work with the specified model.',
                },
              },
            }
          : checkOpenAIEmbeddings(asModel)
        : operation === 'responses'
          ? checkResponsesRequest(asModel)
          : checkOpenAIRequest(asModel)
    if (problem !== undefined) return json(res, problem.status, problem.body)
    if (operation !== 'embeddings' && JSON.stringify(body).includes('BLOCKME'))
      return json(res, 400, promptFilterRefusal())
    if (operation === 'embeddings') {
      const inputs: string[] = Array.isArray(body['input']) ? body['input'] : [body['input']]
      const tokens = inputs.reduce((sum, input) => sum + fakeTokens(String(input)), 0)
      return json(res, 200, {
        object: 'list',
        data: inputs.map((input, index) => {
          const values = fakeVector(
            String(input),
            body['dimensions'] ?? openAIEmbeddingModels[model]!,
          )
          const base64 = Buffer.from(new Float32Array(values).buffer).toString('base64')
          return {
            object: 'embedding',
            index,
            embedding: body['encoding_format'] === 'base64' ? base64 : values,
          }
        }),
        model,
        usage: { prompt_tokens: tokens, total_tokens: tokens },
      })
    }
    const answer =
      operation === 'responses'
        ? responsesModelAnswer(asModel)
        : azureAnswer(asModel, openAIModelAnswer(asModel))
    if ('json' in answer) return json(res, 200, answer.json)
    res.writeHead(200, { 'content-type': 'text/event-stream' })
    for (const frame of answer.frames) res.write(frame)
    res.end()
  })
  return { ...loopback, calls }
}
