import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runCli } from '../helpers/cli'

function writeFile(text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'model-gateway-')), 'gateway.config.json')
  writeFileSync(path, text)
  return path
}

const brokenConfig = `{
  "groups": [
    { "id": "demo", "protocol": "openai", "models": ["demo-echo"], "upstreams": [{ "provider": "mock" }] }
  ],
  "keys": [{ "key": "sk-demo-local-only-0123456789" },]
}
`

describe('CLI: config files', () => {
  it('names the line and column of a JSON syntax error, and shows the line', async () => {
    const path = writeFile(brokenConfig)
    const result = await runCli(['--config', path, '--port', '0'])
    expect(result.code).toBe(1)
    expect(result.stderr).toBe(
      [
        `model-gateway: ${path}:5:55: invalid JSON: Unexpected token ']' (JSON allows no comma after the last item)`,
        '  5 |   "keys": [{ "key": "sk-demo-local-only-0123456789" },]',
        '    |                                                       ^',
        '',
      ].join('\n'),
    )
  })

  it('says the same for the key commands, before any database is asked', async () => {
    const path = writeFile(brokenConfig)
    const result = await runCli(['keys', 'list', '--config', path])
    expect(result.code).toBe(1)
    expect(result.stderr).toContain(
      `model-gateway: ${path}:5:55: invalid JSON: Unexpected token ']'`,
    )
  })

  it('names a file it cannot read', async () => {
    const path = join(tmpdir(), 'model-gateway-no-such-dir', 'gateway.config.json')
    const result = await runCli(['--config', path, '--port', '0'])
    expect(result.code).toBe(1)
    expect(result.stderr).toContain(`model-gateway: cannot read ${path}: ENOENT`)
  })

  it('suggests the field a misspelt one was meant to be', async () => {
    const path = writeFile(
      JSON.stringify({
        groups: [
          {
            id: 'demo',
            protocol: 'openai',
            models: ['demo-echo'],
            upstreams: [{ baseURL: 'https://api.openai.com/v1', apiKey: 'sk-upstream' }],
          },
        ],
        keys: [{ key: 'sk-demo-local-only-0123456789' }],
      }),
    )
    const result = await runCli(['--config', path, '--port', '0'])
    expect(result.code).toBe(1)
    expect(result.stderr).toBe(
      [
        `model-gateway: ${path}`,
        'Invalid gateway config:',
        '  - groups[0].upstreams[0]: Unrecognized key: "baseURL" (did you mean "baseUrl"?)',
        '',
      ].join('\n'),
    )
  })
})
