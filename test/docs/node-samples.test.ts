import { afterAll, describe, expect, it } from 'vitest'
import { codeBlocks, readDoc } from './markdown'
import { removeProject, sendCurl, startProject, writeProject } from './run-project'

/**
 * docs/deployment.md's plain Node samples — the "Node `http`" server and the `serveGateway` one —
 * run as the page says: each saved as `server.mjs` beside the Express project's offline
 * `gateway.config.json`, with `model-gateway` installed (linked: this repository's built package),
 * started with `node server.mjs`, and called with the page's curl line.
 */
const page = 'docs/deployment.md'
const lines = readDoc(page).split('\n')
const blocks = codeBlocks(page)
/** The blocks between a heading and the next `## ` heading. */
function section(heading: string) {
  const from = lines.indexOf(heading) + 1
  expect(from).toBeGreaterThan(0)
  const next = lines.findIndex((line, index) => index >= from && line.startsWith('## '))
  const to = next === -1 ? lines.length + 1 : next + 1
  return blocks.filter((block) => block.line > from && block.line < to)
}

const express = section('## Express')
const config = express.filter((block) => block.lang === 'json')[1]!.code
const curl = express.find((block) => block.lang === 'sh')!.code
const samples = {
  'Node `http`': section('## Node `http`'),
  serveGateway: section('## Node server (`serveGateway`, `toNodeHandler`)'),
}

const folders: string[] = []
afterAll(() => folders.forEach(removeProject))

describe("docs/deployment.md's Node samples", () => {
  it('uses the offline config and a curl line from the Express project', () => {
    expect(JSON.parse(config).groups[0].upstreams).toEqual([{ provider: 'mock' }])
    expect(curl).toContain('/v1/chat/completions')
  })

  for (const [name, section] of Object.entries(samples)) {
    it(`${name}: one JavaScript block, said to run as server.mjs with node`, () => {
      expect(section.map((block) => block.lang)).toEqual(['js'])
      const prose = lines.slice(0, section[0]!.line - 1).join('\n')
      expect(prose.slice(prose.lastIndexOf('\n\n'))).toMatch(
        /`server\.mjs`[\s\S]*`node server\.mjs`/,
      )
    })

    it(`${name}: starts, says where it listens, answers the curl line, stops on SIGTERM`, async () => {
      const folder = writeProject(
        { 'server.mjs': section[0]!.code, 'gateway.config.json': config },
        ['model-gateway'],
      )
      folders.push(folder)
      const running = await startProject(folder, ['server.mjs'])
      try {
        expect(await sendCurl(running.port, curl)).toEqual({
          status: 200,
          content: 'You said: Hello',
        })
      } catch (error) {
        await running.stop()
        throw error
      }
      // The http sample has no handler, so SIGTERM ends it; serveGateway's closes and exits 0.
      expect(await running.stop('SIGTERM')).toBe(name === 'serveGateway' ? 0 : null)
      expect(running.output()).not.toContain('killed')
    })
  }
})
