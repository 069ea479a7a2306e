import { existsSync, statSync } from 'node:fs'
import { dirname, join, normalize } from 'node:path'
import { describe, expect, it } from 'vitest'
import { repoRoot } from '../helpers/spawn-runtime'
import { anchorsOf, docFiles, githubSlug, linksOf } from './markdown'

/**
 * Every relative link of README.md and docs/**\/*.md names a file or folder of the repository,
 * and every `#anchor` one of the target page's headings, as GitHub renders them: the pages move
 * and split, and a link that dangles is a reader sent nowhere.
 */
describe('documentation links', () => {
  it('reads GitHub anchors as GitHub makes them', () => {
    expect(githubSlug('Node server (`serveGateway`, `toNodeHandler`)')).toBe(
      'node-server-servegateway-tonodehandler',
    )
    expect(githubSlug('Responses API (`/v1/responses`)')).toBe('responses-api-v1responses')
    expect(githubSlug('Decisions where the spec says "not shown"')).toBe(
      'decisions-where-the-spec-says-not-shown',
    )
    expect(githubSlug('Shared state, keys — and the ledger')).toBe(
      'shared-state-keys--and-the-ledger',
    )
  })

  for (const file of docFiles()) {
    it(`${file}: every relative link and anchor resolves`, () => {
      const broken: string[] = []
      for (const { line, target } of linksOf(file)) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue // https:, mailto:
        const [path = '', anchor] = target.split('#', 2)
        const resolved = path === '' ? file : normalize(join(dirname(file), decodeURI(path)))
        if (resolved.startsWith('..') || !existsSync(join(repoRoot, resolved))) {
          broken.push(`${file}:${line}: ${target} (no such file)`)
          continue
        }
        if (anchor === undefined) continue
        if (!resolved.endsWith('.md') || statSync(join(repoRoot, resolved)).isDirectory()) {
          broken.push(`${file}:${line}: ${target} (an anchor into a file that is not a page)`)
        } else if (!anchorsOf(resolved).has(anchor)) {
          broken.push(`${file}:${line}: ${target} (no heading makes #${anchor})`)
        }
      }
      expect(broken).toEqual([])
    })
  }
})
