import { spawn } from 'node:child_process'
import { chmodSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestDatabase, type TestDatabase } from '../helpers/postgres'
import { repoRoot } from '../helpers/spawn-runtime'

/**
 * The key and migrate command lines of the README and the docs pages, run as a user pastes them:
 * by a shell, from a folder holding the `gateway.config.json` the docs show (its `state` names
 * `${REDIS_URL}` and `${DATABASE_URL}`), with `DATABASE_URL` exported and `REDIS_URL` not — key
 * commands use Postgres only. Lines holding `…` are synopses, not commands. The one change: the
 * docs' example key id is replaced with the id the docs' `keys create` printed, as a user would.
 */
const exampleKeyId = 'key_k3x9q2mv8w1a'

/** Markdown files a user reads: the README and the docs pages (not the decision records). */
function docsFiles(): string[] {
  const files = [join(repoRoot, 'README.md')]
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name)
      if (entry.isDirectory() && entry.name !== 'decisions') walk(path)
      else if (entry.isFile() && entry.name.endsWith('.md')) files.push(path)
    }
  }
  walk(join(repoRoot, 'docs'))
  return files
}

type DocLine = { file: string; line: string }

/** The `model-gateway keys …` and `model-gateway migrate …` lines of the shell blocks of a text. */
function commandLines(file: string): DocLine[] {
  const found: DocLine[] = []
  let inShell = false
  let pending = ''
  for (const raw of readFileSync(file, 'utf8').split('\n')) {
    const fence = /^\s*```\s*(\w*)/.exec(raw)
    if (fence !== null) {
      inShell = !inShell && ['sh', 'bash', 'shell', 'console'].includes(fence[1]!)
      pending = ''
      continue
    }
    if (!inShell) continue
    const line = pending + raw.trim()
    if (line.endsWith('\\')) {
      pending = `${line.slice(0, -1).trimEnd()} `
      continue
    }
    pending = ''
    if (/^model-gateway (keys|migrate)\b/.test(line) && !line.includes('…')) {
      found.push({ file: relative(repoRoot, file), line })
    }
  }
  return found
}

/** Runs one line with `sh`, as a terminal would. */
function runLine(
  line: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn('sh', ['-c', line], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (data: Buffer) => void (stdout += data.toString()))
  child.stderr.on('data', (data: Buffer) => void (stderr += data.toString()))
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr })))
}

let database: TestDatabase
let folder: string
let env: NodeJS.ProcessEnv

beforeAll(async () => {
  database = await createTestDatabase('cli_readme')
  folder = mkdtempSync(join(tmpdir(), 'model-gateway-readme-'))
  // `model-gateway` on the PATH: the CLI from source, as the package's `bin` runs it built.
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href
  const bin = join(folder, 'model-gateway')
  writeFileSync(
    bin,
    `#!/bin/sh\nexec "${process.execPath}" --import "${tsx}" "${join(repoRoot, 'src/node/cli/cli.ts')}" "$@"\n`,
  )
  chmodSync(bin, 0o755)
  writeFileSync(
    join(folder, 'gateway.config.json'),
    JSON.stringify({
      groups: [
        { id: 'gpt', protocol: 'openai', models: ['gpt-demo'], upstreams: [{ provider: 'mock' }] },
        {
          id: 'claude',
          protocol: 'anthropic',
          models: ['claude-demo'],
          upstreams: [{ provider: 'mock' }],
        },
      ],
      keys: [],
      // The Shared state section's `state`, as written.
      state: { redis: '${REDIS_URL}', postgres: '${DATABASE_URL}', prefix: 'mg' },
    }),
  )
  const { REDIS_URL: _redis, ...rest } = process.env
  env = { ...rest, PATH: `${folder}:${process.env.PATH}`, DATABASE_URL: database.url }
})

afterAll(async () => {
  rmSync(folder, { recursive: true, force: true })
  await database.drop()
})

describe('the key commands of the README and docs, run as written', { timeout: 120_000 }, () => {
  it('migrate, create, list, update, report and revoke with DATABASE_URL and no REDIS_URL', async () => {
    const lines = docsFiles().flatMap(commandLines)
    // Create first and revoke last, wherever the pages put them.
    const order = [
      'migrate',
      'keys create',
      'keys list',
      'keys update',
      'keys usage',
      'keys revoke',
    ]
    const rank = (line: string) =>
      order.findIndex((name) => line.startsWith(`model-gateway ${name}`))
    lines.sort((left, right) => rank(left.line) - rank(right.line))
    expect(new Set(lines.map(({ line }) => order[rank(line)]))).toEqual(new Set(order))

    let createdId: string | undefined
    for (const { file, line } of lines) {
      const command = createdId === undefined ? line : line.replaceAll(exampleKeyId, createdId)
      const result = await runLine(command, folder, env)
      const context = `${file}: ${command}\n${result.stdout}${result.stderr}`
      expect(result.code, context).toBe(0)
      // `--groups` without `--config` warns that the names are not checked, and nothing else.
      const unchecked = / --groups /.test(command) && !/ --config /.test(command)
      expect(result.stderr, context).toMatch(
        unchecked ? /^model-gateway: warning: the group names .* are not checked[^\n]*\n$/ : /^$/,
      )
      if (line.startsWith('model-gateway migrate')) {
        expect(result.stdout, context).toMatch(/schema is (at|up to date)/)
      } else if (line.startsWith('model-gateway keys create')) {
        const id = /^Created key (key_[a-z0-9]{12}) \(team-a\):\n\n {2}sk-mg-/.exec(result.stdout)
        expect(id, context).not.toBeNull()
        createdId ??= id![1]
      } else if (line.startsWith('model-gateway keys list')) {
        expect(result.stdout, context).toMatch(/^ID\s+NAME\s+KEY/)
        expect(result.stdout, context).toContain(createdId)
      } else if (line.startsWith('model-gateway keys update')) {
        expect(result.stdout, context).toContain(`Updated ${createdId}`)
        expect(result.stdout, context).toContain('concurrent=4')
      } else if (line.startsWith('model-gateway keys usage')) {
        expect(result.stdout, context).toContain(`Usage of ${createdId} (team-a)`)
      } else if (line.startsWith('model-gateway keys revoke')) {
        expect(result.stdout, context).toMatch(new RegExp(`^Revoked ${createdId} `))
      }
    }
    const keys = await database.pool.query<{ id: string; revoked: boolean }>(
      'SELECT id, revoked_at IS NOT NULL AS revoked FROM mg_api_keys ORDER BY created_at',
    )
    expect(keys.rows.find((row) => row.id === createdId)?.revoked).toBe(true)
  })

  it('names every way to give the database when none is given, without the usage text', async () => {
    const { DATABASE_URL: _url, ...withoutDatabase } = env
    const result = await runLine('model-gateway keys list', folder, withoutDatabase)
    expect(result.code).toBe(2)
    expect(result.stderr).toBe(
      'model-gateway: name the database: --database <url>, a config with state.postgres (--config), or DATABASE_URL\n' +
        'See "model-gateway keys --help" for the options.\n',
    )
  })
})
