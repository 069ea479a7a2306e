import { afterAll, describe, expect, it } from 'vitest'
import { codeBlocks, readDoc } from './markdown'
import { removeProject, sendCurl, startProject, writeProject } from './run-project'

/**
 * docs/deployment.md's Express project, as a reader pastes it: its `package.json`,
 * `gateway.config.json` and `server.js` written into an empty folder, `model-gateway` and
 * `express` installed (linked: this repository's built package, and its express), started with
 * the page's start line, and called with the page's curl body.
 */
const page = 'docs/deployment.md'
const text = readDoc(page).split('\n')
const from = text.indexOf('## Express') + 1
const to = text.indexOf('## Bun') + 1
const blocks = codeBlocks(page).filter((block) => block.line > from && block.line < to)
const byLang = (lang: string) => blocks.filter((block) => block.lang === lang)

const folders: string[] = []
afterAll(() => folders.forEach(removeProject))

describe("docs/deployment.md's Express project", () => {
  it('has a package.json, an offline config, a server.js and a curl line', () => {
    expect(byLang('json')).toHaveLength(2)
    expect(byLang('js')).toHaveLength(1)
    expect(byLang('sh')).toHaveLength(1)
    const manifest = JSON.parse(byLang('json')[0]!.code)
    expect(manifest).toMatchObject({ type: 'module', scripts: { start: 'node server.js' } })
    expect(JSON.parse(byLang('json')[1]!.code).groups[0].upstreams).toEqual([{ provider: 'mock' }])
  })

  it('starts with its start line, says where it listens, and answers the curl line', async () => {
    const [manifest, config] = byLang('json')
    const folder = writeProject(
      {
        'package.json': manifest!.code,
        'gateway.config.json': config!.code,
        'server.js': byLang('js')[0]!.code,
      },
      ['model-gateway', 'express'],
    )
    folders.push(folder)
    const start = JSON.parse(manifest!.code).scripts.start.split(' ') as string[]
    expect(start[0]).toBe('node')
    const running = await startProject(folder, start.slice(1))
    try {
      expect(await sendCurl(running.port, byLang('sh')[0]!.code)).toEqual({
        status: 200,
        content: 'You said: Hello',
      })
    } finally {
      await running.stop()
    }
  })
})
