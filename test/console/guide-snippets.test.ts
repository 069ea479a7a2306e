import { execFile } from 'node:child_process'
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createGateway, type GatewayConfig } from '../../src/index'
import { guideSnippets, type Snippet } from '../../src/console/guide/snippets'
import { serveGateway, type ServedGateway } from '../../src/node/index'
import { repoRoot, testModules } from '../helpers/spawn-runtime'

/**
 * Every snippet of the call guide, filled in as the console fills it, is run against a live
 * gateway with the mock upstream: curl lines through bash as shown; TypeScript through the real
 * SDKs (compiled by tsc, then run); environment variables sourced, then read by the SDK the tool is
 * built on, with its defaults; Codex's config.toml parsed with Python's tomllib and called as
 * Codex calls; the workflow-tool settings as a tool would use them. PyPI cannot be reached here,
 * so the Python snippets are compiled (`python3 -m py_compile`), not run.
 */
const run = promisify(execFile)
const apiKey = 'sk-guide-snippets-key-0123456789'
/**
 * A call name that needs quoting in every language: quotes of both kinds, a `$` a shell would
 * expand, spaces. (No `\\`: Gemini's SDK puts the model in the URL path, where URL parsing turns
 * it into `/`.)
 */
const oddModel = `it's "odd" $HOME model`
// Inside the test packages' node_modules, so that the snippets' imports resolve to the SDKs the
// tests install (test/clients) and, past them, to the repository's own packages.
const folder = join(testModules, '.cache', 'console-guide')

let served: ServedGateway
beforeAll(async () => {
  mkdirSync(folder, { recursive: true })
  const gateway = createGateway({
    groups: [
      {
        id: 'chat',
        protocol: 'openai',
        models: ['gpt-4o-mini', oddModel],
        upstreams: [{ provider: 'mock' }],
      },
    ],
    keys: [{ key: apiKey, name: 'guide' }],
  } as GatewayConfig)
  served = await serveGateway(gateway, { port: 0 })
})
afterAll(async () => {
  await served?.close()
  rmSync(folder, { recursive: true, force: true })
})

const snippetsFor = (model: string) =>
  new Map(
    guideSnippets({ baseUrl: served.url, apiKey, model }).map((snippet) => [snippet.id, snippet]),
  )

async function bash(script: string, env: Record<string, string> = {}) {
  return run('bash', ['-c', script], { env: { ...process.env, ...env }, timeout: 30_000 })
}

/** Runs TypeScript with the repository's tsx, from a file inside node_modules. */
async function runTs(name: string, code: string, env: Record<string, string> = {}) {
  const file = join(folder, `${name}.mts`)
  writeFileSync(file, code)
  const { stdout } = await run(process.execPath, ['--import', 'tsx', file], {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    timeout: 30_000,
  })
  return stdout.trim()
}

/** The lines of a shell snippet that set variables, without the command that starts the tool. */
const exportsOf = (snippet: Snippet) =>
  snippet.code
    .split('\n')
    .filter((line) => line.startsWith('export '))
    .join('\n')

const typescript = [
  'openai-ts',
  'anthropic-ts',
  'genai-ts',
  'responses-ts',
  'ai-sdk',
  'langchain-ts',
]
const python = [
  'openai-python',
  'anthropic-python',
  'genai-python',
  'responses-python',
  'langchain-python',
]

describe('the call guide: every snippet runs', { timeout: 60_000 }, () => {
  it('has a test below for every snippet it shows', () => {
    const tested = [
      'curl-chat',
      'curl-messages',
      'curl-usage',
      ...typescript,
      ...python,
      'claude-code',
      'codex-config',
      'codex-key',
      'gemini-cli',
      'workflow-base-url',
      'workflow-http',
    ]
    expect([...snippetsFor('gpt-4o-mini').keys()].sort()).toEqual(tested.sort())
  })

  for (const model of ['gpt-4o-mini', oddModel]) {
    it(`curl: chat completions, messages and usage, run by bash as shown (model ${JSON.stringify(model)})`, async () => {
      const snippets = snippetsFor(model)
      const chat = JSON.parse((await bash(snippets.get('curl-chat')!.code)).stdout)
      expect([chat.model, chat.choices[0].message.content]).toEqual([model, 'You said: Hello!'])
      const message = JSON.parse((await bash(snippets.get('curl-messages')!.code)).stdout)
      expect([message.type, message.model, message.content[0].text]).toEqual([
        'message',
        model,
        'You said: Hello!',
      ])
      const usage = JSON.parse((await bash(snippets.get('curl-usage')!.code)).stdout)
      expect(usage).toMatchObject({ object: 'usage', key: { name: 'guide' } })
      expect(usage.usage.requests).toBeGreaterThanOrEqual(2)
    })

    it(`TypeScript through the real SDKs and frameworks (model ${JSON.stringify(model)})`, async () => {
      const snippets = snippetsFor(model)
      const results = await Promise.all(
        typescript.map(async (id) => [
          id,
          await runTs(`${id}-${model === oddModel ? 'odd' : 'plain'}`, snippets.get(id)!.code),
        ]),
      )
      expect(Object.fromEntries(results)).toEqual(
        Object.fromEntries(typescript.map((id) => [id, 'You said: Hello!'])),
      )
    })
  }

  it('TypeScript snippets compile with tsc against the SDKs’ own types', async () => {
    const snippets = snippetsFor('gpt-4o-mini')
    const files = typescript.map((id) => {
      const file = join(folder, `compile-${id}.mts`)
      writeFileSync(file, `${snippets.get(id)!.code}\nexport {}\n`)
      return file
    })
    const tsc = join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc')
    const args = [
      '--noEmit',
      '--strict',
      '--target',
      'es2022',
      '--module',
      'esnext',
      '--moduleResolution',
      'bundler',
      '--skipLibCheck',
      '--types',
      'node',
      ...files,
    ]
    await expect(run(process.execPath, [tsc, ...args], { cwd: repoRoot })).resolves.toBeDefined()
  })

  it('Python snippets compile (PyPI is out of reach here, so they are not run)', async () => {
    const snippets = snippetsFor(oddModel)
    for (const id of python) {
      const file = join(folder, `${id}.py`)
      writeFileSync(file, snippets.get(id)!.code)
      await expect(run('python3', ['-m', 'py_compile', file]), id).resolves.toBeDefined()
      expect(snippets.get(id)!.code).toContain(served.url)
    }
  })

  it("Claude Code's variables, sourced, drive the Anthropic SDK Claude Code is built on, with its defaults", async () => {
    const snippet = snippetsFor('gpt-4o-mini').get('claude-code')!
    expect(snippet.code.split('\n').at(-1)).toBe('claude')
    const probe = join(folder, 'claude-code-probe.mts')
    writeFileSync(
      probe,
      `import Anthropic from '@anthropic-ai/sdk'
const client = new Anthropic()
for (const model of [process.env.ANTHROPIC_MODEL!, process.env.ANTHROPIC_DEFAULT_HAIKU_MODEL!]) {
  const message = await client.messages.create({ model, max_tokens: 100, messages: [{ role: 'user', content: 'Hello!' }] })
  console.log(message.content[0]?.type === 'text' ? message.content[0].text : '')
}`,
    )
    const env = { ANTHROPIC_API_KEY: '', ANTHROPIC_AUTH_TOKEN: '', ANTHROPIC_BASE_URL: '' }
    const { stdout } = await bash(
      `${exportsOf(snippet)}\nunset ANTHROPIC_API_KEY\n"${process.execPath}" --import tsx "${probe}"`,
      env,
    )
    expect(stdout.trim().split('\n')).toEqual(['You said: Hello!', 'You said: Hello!'])
  })

  it('Codex: config.toml parses (tomllib) and its provider, with the key variable set, answers a Codex request', async () => {
    const snippets = snippetsFor('gpt-4o-mini')
    const tomlFile = join(folder, 'config.toml')
    writeFileSync(tomlFile, snippets.get('codex-config')!.code)
    const { stdout } = await run('python3', [
      '-c',
      'import json, sys, tomllib; print(json.dumps(tomllib.load(open(sys.argv[1], "rb"))))',
      tomlFile,
    ])
    const config = JSON.parse(stdout) as {
      model: string
      model_provider: string
      model_providers: Record<string, { base_url: string; env_key: string; wire_api: string }>
    }
    const provider = config.model_providers[config.model_provider]!
    expect([config.model, provider.base_url, provider.wire_api]).toEqual([
      'gpt-4o-mini',
      `${served.url}/v1`,
      'responses',
    ])
    // Codex's own request (recorded), streamed from `${base_url}/responses` with the key from env_key.
    const body = JSON.parse(
      readFileSync(join(repoRoot, 'test/fixtures/responses/codex-request.json'), 'utf8'),
    )
    body.model = config.model
    const keyExports = exportsOf(snippets.get('codex-key')!)
    const { stdout: key } = await bash(`${keyExports}\nprintf %s "$${provider.env_key}"`)
    const response = await fetch(`${provider.base_url}/responses`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        accept: 'text/event-stream',
      },
      body: JSON.stringify(body),
    })
    expect(response.status).toBe(200)
    const events = await response.text()
    expect(events).toContain('event: response.completed')
  })

  it("Gemini CLI's variables, sourced, drive @google/genai (what Gemini CLI runs on) with its defaults", async () => {
    const snippet = snippetsFor('gpt-4o-mini').get('gemini-cli')!
    const model = /gemini -m (\S+)$/.exec(snippet.code)?.[1]
    expect(model).toBe('gpt-4o-mini')
    const probe = join(folder, 'gemini-cli-probe.mts')
    writeFileSync(
      probe,
      `import { GoogleGenAI } from '@google/genai'
const ai = new GoogleGenAI({})
const response = await ai.models.generateContent({ model: ${JSON.stringify(model)}, contents: 'Hello!' })
console.log(response.text)`,
    )
    const { stdout } = await bash(
      `${exportsOf(snippet)}\nunset GOOGLE_API_KEY\n"${process.execPath}" --import tsx "${probe}"`,
    )
    expect(stdout.trim()).toBe('You said: Hello!')
  })

  it("workflow tools: the Base URL field's settings and a generic HTTP request node both answer", async () => {
    const snippets = snippetsFor('gpt-4o-mini')
    const fields = new Map(
      snippets
        .get('workflow-base-url')!
        .code.split('\n')
        .map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 2)]),
    )
    const client = new OpenAI({
      baseURL: fields.get('Base URL (or API Base, Endpoint)'),
      apiKey: fields.get('API key'),
    })
    const completion = await client.chat.completions.create({
      model: fields.get('Model')!,
      messages: [{ role: 'user', content: 'Hello!' }],
    })
    expect(completion.choices[0]?.message.content).toBe('You said: Hello!')

    const node = snippets.get('workflow-http')!.code
    const method = /^Method: (\w+)$/m.exec(node)![1]
    const url = /^URL: (\S+)$/m.exec(node)![1]!
    const headers = [...node.matchAll(/^Header: ([^:]+): (.+)$/gm)].map(
      (match) => [match[1]!, match[2]!] as [string, string],
    )
    const body = node.slice(node.indexOf('Body: ') + 'Body: '.length)
    const response = await fetch(url, { method, headers, body })
    expect(response.status).toBe(200)
    const answer = (await response.json()) as { choices: Array<{ message: { content: string } }> }
    expect(answer.choices[0]?.message.content).toBe('You said: Hello!')
  })
})
