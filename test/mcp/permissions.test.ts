import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { globMatch, grantsOf, mcpAllowed } from '../../src/mcp/permissions'

describe('mcpAllowed: one decision for lists and calls, deny by default', () => {
  it('denies everything without a grant, and with an empty one', () => {
    expect(mcpAllowed(undefined, 'github', 'tool', 'search')).toBe(false)
    expect(mcpAllowed(undefined, 'github', 'server')).toBe(false)
    const empty = grantsOf({}, undefined)
    expect(mcpAllowed(empty, 'github', 'tool', 'search')).toBe(false)
    expect(mcpAllowed(empty, 'github', 'server')).toBe(false)
  })

  it('servers allow all of a server; tools narrow; tool patterns alone grant tools only', () => {
    const servers = grantsOf({ servers: ['git*'] }, undefined)
    expect(mcpAllowed(servers, 'github', 'tool', 'search')).toBe(true)
    expect(mcpAllowed(servers, 'github', 'prompt', 'p')).toBe(true)
    expect(mcpAllowed(servers, 'docs', 'tool', 'search')).toBe(false)
    const narrowed = grantsOf({ servers: ['github'], tools: ['github__search_*'] }, undefined)
    expect(mcpAllowed(narrowed, 'github', 'tool', 'search_code')).toBe(true)
    expect(mcpAllowed(narrowed, 'github', 'tool', 'delete_repo')).toBe(false)
    const tools = grantsOf({ tools: ['docs__read'] }, undefined)
    expect(mcpAllowed(tools, 'docs', 'server')).toBe(true)
    expect(mcpAllowed(tools, 'docs', 'tool', 'read')).toBe(true)
    expect(mcpAllowed(tools, 'docs', 'tool', 'write')).toBe(false)
    expect(mcpAllowed(tools, 'docs', 'resource')).toBe(false)
    expect(mcpAllowed(tools, 'github', 'server')).toBe(false)
  })

  it("intersects a key's grant with its team's: neither re-grants what the other withholds", () => {
    const grants = grantsOf({ servers: ['*'] }, { tools: ['github__*'] })
    expect(mcpAllowed(grants, 'github', 'tool', 'search')).toBe(true)
    expect(mcpAllowed(grants, 'docs', 'tool', 'read')).toBe(false)
    expect(mcpAllowed(grants, 'github', 'prompt', 'p')).toBe(false)
    // A team grant alone binds a key without one.
    expect(mcpAllowed(grantsOf(undefined, { servers: ['docs'] }), 'docs', 'tool', 'x')).toBe(true)
  })

  it('adding a grant never allows more (property)', () => {
    const pattern = fc.stringMatching(/^[a-c*_]{0,6}$/)
    const grant = fc.record(
      { servers: fc.array(pattern, { maxLength: 3 }), tools: fc.array(pattern, { maxLength: 3 }) },
      { requiredKeys: [] },
    )
    fc.assert(
      fc.property(
        grant,
        grant,
        fc.stringMatching(/^[a-c]{1,3}$/),
        fc.stringMatching(/^[a-c_]{1,4}$/),
        (a, b, server, tool) => {
          for (const kind of ['tool', 'prompt', 'resource', 'server'] as const) {
            const one = mcpAllowed(grantsOf(a, undefined), server, kind, tool)
            const both = mcpAllowed(grantsOf(a, b), server, kind, tool)
            expect(both && !one).toBe(false)
          }
        },
      ),
    )
  })

  it('globMatch treats only * as special', () => {
    expect(globMatch('a.b', 'a.b')).toBe(true)
    expect(globMatch('a.b', 'axb')).toBe(false)
    expect(globMatch('*', '')).toBe(true)
    expect(globMatch('x*y', 'x\ny')).toBe(true)
  })
})
