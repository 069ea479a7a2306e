import { describe, expect, it } from 'vitest'
import { builtInRoutes } from '../../src/handlers/built-in-routes'
import { GatewayError } from '../../src/errors'
import { jsonAnswer } from '../../src/http/gateway-answer'
import { compileRoutes, type RouteMatch } from '../../src/http/route-table'
import { renderError } from '../../src/protocols/render-error'

const table = compileRoutes(builtInRoutes)

/** A match as names and shapes, the route definition left out. */
function matchRoute(path: string, method: string) {
  const match: RouteMatch = table.match(path, method)
  if (match.kind === 'unknown') return match
  const { route, ...rest } = match
  return { ...rest, name: route.name, errors: route.errors }
}

describe('the built-in route table', () => {
  it.each([
    ['/v1/chat/completions', 'POST', 'chat.completions', 'openai'],
    ['/chat/completions', 'POST', 'chat.completions', 'openai'],
    ['/v1/messages', 'POST', 'messages', 'anthropic'],
    ['/v1/messages/count_tokens', 'POST', 'count_tokens', 'anthropic'],
    ['/v1/models', 'GET', 'models', 'header'],
    ['/models', 'GET', 'models', 'header'],
    ['/v1/usage', 'GET', 'usage', 'header'],
    ['/v1/responses', 'POST', 'responses', 'responses'],
    ['/responses', 'POST', 'responses', 'responses'],
    ['/v1/embeddings', 'POST', 'embeddings', 'openai'],
    ['/embeddings', 'POST', 'embeddings', 'openai'],
    ['/v1beta/models', 'GET', 'gemini.models', 'gemini'],
  ])('%s %s is %s, answering errors as %s', (path, method, name, errors) => {
    expect(matchRoute(path, method)).toEqual({ kind: 'route', name, errors })
  })

  it('ignores one trailing slash, and HEAD is GET', () => {
    expect(matchRoute('/v1/chat/completions/', 'POST')).toMatchObject({ name: 'chat.completions' })
    expect(matchRoute('/v1/models', 'HEAD')).toEqual({
      kind: 'route',
      name: 'models',
      errors: 'header',
    })
    expect(matchRoute('/', 'GET')).toEqual({ kind: 'unknown' })
  })

  it('answers a wrong method with what the route allows', () => {
    expect(matchRoute('/v1/chat/completions', 'GET')).toEqual({
      kind: 'wrong-method',
      name: 'chat.completions',
      errors: 'openai',
      allow: 'POST',
    })
    expect(matchRoute('/v1/models', 'POST')).toEqual({
      kind: 'wrong-method',
      name: 'models',
      errors: 'header',
      allow: 'GET, HEAD',
    })
    expect(matchRoute('/v1beta/models/gemini-pro:generateContent', 'GET')).toEqual({
      kind: 'wrong-method',
      name: 'gemini.generate',
      errors: 'gemini',
      allow: 'POST',
    })
    expect(matchRoute('/v1/responses/resp_1', 'DELETE')).toMatchObject({
      kind: 'wrong-method',
      name: 'responses.get',
      allow: 'GET, HEAD',
    })
  })

  it.each([
    ['generateContent', 'gemini.generate'],
    ['streamGenerateContent', 'gemini.stream'],
    ['countTokens', 'gemini.count_tokens'],
    ['embedContent', 'gemini.embed'],
    ['batchEmbedContents', 'gemini.batch_embed'],
  ])('reads the Gemini action %s, the model from the path', (action, name) => {
    expect(matchRoute(`/v1beta/models/gemini-2.5-flash:${action}`, 'POST')).toEqual({
      kind: 'route',
      name,
      errors: 'gemini',
      model: 'gemini-2.5-flash',
    })
  })

  it('decodes the Gemini model, so a group pin works raw or as %2F, and splits at the last colon', () => {
    for (const path of [
      '/v1beta/models/g/gem:generateContent',
      '/v1beta/models/g%2Fgem:generateContent',
    ]) {
      expect(matchRoute(path, 'POST')).toMatchObject({ name: 'gemini.generate', model: 'g/gem' })
    }
    expect(matchRoute('/v1beta/models/a:b:countTokens', 'POST')).toMatchObject({
      name: 'gemini.count_tokens',
      model: 'a:b',
    })
    expect(matchRoute('/v1beta/models/models%2Fx%3AgenerateContent', 'POST')).toMatchObject({
      name: 'gemini.generate',
      model: 'models/x',
    })
    expect(matchRoute('/v1beta/models/gemini-pro', 'GET')).toEqual({
      kind: 'route',
      name: 'gemini.model',
      errors: 'gemini',
      model: 'gemini-pro',
    })
    expect(matchRoute('/v1beta/models/g%2Fgemini-pro/', 'HEAD')).toMatchObject({
      name: 'gemini.model',
      model: 'g/gemini-pro',
    })
  })

  it.each([
    '/v1beta/models/x:toString',
    '/v1beta/models/x:constructor',
    '/v1beta/models/x:__proto__',
    '/v1beta/models/:generateContent',
    '/v1beta/models/%E0%A4%A',
    '/v1beta/modelsx',
    '/toString',
    '/__proto__',
    '/v1/chat/completions/extra',
    '/v1/responses/a%2Fb',
    '/v2/responses/abc',
    '/v1/chat/completions?x=1',
  ])('%s is no route', (path) => {
    expect(matchRoute(path, 'POST')).toEqual({ kind: 'unknown' })
  })

  it('reads a stored response id, with or without /v1', () => {
    for (const path of ['/v1/responses/resp_A-1', '/responses/resp_A-1']) {
      expect(matchRoute(path, 'GET')).toEqual({
        kind: 'route',
        name: 'responses.get',
        errors: 'responses',
        id: 'resp_A-1',
      })
    }
  })
})

describe('compileRoutes', () => {
  const spec = (name: string, method: string, paths: string[]) =>
    ({ name, method, paths, errors: 'openai' }) as const

  it('serves several methods on one path, and lists them all in Allow', () => {
    const routes = compileRoutes([
      spec('mcp', 'POST', ['/mcp', '/mcp/{id}']),
      spec('mcp.end', 'DELETE', ['/mcp', '/mcp/{id}']),
    ])
    expect(routes.match('/mcp', 'DELETE')).toMatchObject({
      kind: 'route',
      route: { name: 'mcp.end' },
    })
    expect(routes.match('/mcp/github', 'POST')).toMatchObject({
      route: { name: 'mcp' },
      id: 'github',
    })
    expect(routes.match('/mcp/github', 'GET')).toMatchObject({
      kind: 'wrong-method',
      allow: 'POST, DELETE',
    })
  })

  it('refuses what it could not match as written', () => {
    expect(() => compileRoutes([spec('a', 'GET', ['/x']), spec('b', 'GET', ['/x'])])).toThrow(
      /Two routes/,
    )
    expect(() => compileRoutes([spec('a', 'GET', ['/x/{name}'])])).toThrow(/Unsupported/)
    expect(() => compileRoutes([spec('a', 'GET', ['/x/{id}:run'])])).toThrow(/takes no action/)
    expect(() =>
      compileRoutes([spec('a', 'GET', ['/x/{id}']), spec('b', 'GET', ['/x/{model}:go'])]),
    ).toThrow(/Two parameter kinds/)
    expect(() => compileRoutes([spec('a', 'GET', ['/x/'])])).toThrow(/not end/)
  })

  it('renders the errors of a route with its own renderer', () => {
    const answer = renderError(
      (error, requestId) =>
        jsonAnswer({ jsonrpc: '2.0', error: { message: error.message, data: requestId } }, 400),
      new GatewayError('rate_limited', 'Slow down.', { headers: { 'retry-after': '2' } }),
      'req_1',
    )
    expect(answer.status).toBe(400)
    expect(answer.headers.get('retry-after')).toBe('2')
    expect(JSON.parse(answer.body as string)).toEqual({
      jsonrpc: '2.0',
      error: { message: 'Slow down.', data: 'req_1' },
    })
  })
})
