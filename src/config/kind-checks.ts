import { checkKindSettings, createKindRegistry, knownKindNames } from '../upstream/kind-registry'
import { kindProblem } from '../upstream/kind'

type Path = (string | number)[]
type Report = (path: Path, message: string) => void

/**
 * The config's upstream kinds (`upstreamKinds`) and the entries that name one: each kind given is
 * usable (a name, a specification version this gateway implements, `schema` and `create`) and
 * takes no name already taken; each entry's `provider` names a known kind that serves its
 * group's protocol (a `converse` group's entries all name one), and an entry of an application's kind passes that kind's schema, its issues
 * reported at their paths in the entry. The built-in kinds' entries are checked by the config
 * schema itself.
 */
export function checkUpstreamKinds(config: Record<string, unknown>, issue: Report): void {
  const given = Array.isArray(config.upstreamKinds) ? (config.upstreamKinds as unknown[]) : []
  const registry = createKindRegistry(given)
  const names = new Set<string>()
  given.forEach((kind, index) => {
    const problem = kindProblem(kind)
    if (problem !== undefined) return issue(['upstreamKinds', index], problem)
    const { name } = kind as { name: string }
    if (names.has(name) || registry.get(name) !== kind) {
      issue(['upstreamKinds', index, 'name'], `the upstream kind name "${name}" is already taken`)
    }
    names.add(name)
  })
  const groups = Array.isArray(config.groups) ? (config.groups as unknown[]) : []
  groups.forEach((group, groupIndex) => {
    const { protocol, upstreams } = (group ?? {}) as { protocol?: unknown; upstreams?: unknown }
    if (!Array.isArray(upstreams)) return
    upstreams.forEach((entry: unknown, index) => {
      if (protocol === 'converse' && isHttpEntry(entry)) {
        // Converse has no HTTP upstream of its own: its upstreams are a kind's (Bedrock's).
        return issue(
          ['groups', groupIndex, 'upstreams', index, 'provider'],
          'a "converse" group\'s upstreams name their kind ("provider": "bedrock", or a kind of your own that serves "converse")',
        )
      }
      if (typeof entry !== 'object' || entry === null || !('provider' in entry)) return
      if (typeof entry.provider !== 'string') return // reported by the entry's schema
      const path = ['groups', groupIndex, 'upstreams', index]
      const kind = registry.get(entry.provider)
      if (kind === undefined) {
        return issue(
          [...path, 'provider'],
          `unknown upstream kind "${entry.provider}": the known kinds are ${knownKindNames(registry)} (add your own with "upstreamKinds")`,
        )
      }
      if (typeof protocol === 'string' && !kind.protocols.some((served) => served === protocol)) {
        issue(
          [...path, 'provider'],
          `the "${kind.name}" upstream kind serves ${kind.protocols.map((name) => `"${name}"`).join(', ')} groups, not "${protocol}"`,
        )
      }
      if (isBuiltIn(kind.name)) return
      const checked = checkKindSettings(kind, entry)
      for (const found of checked.issues ?? []) {
        const inner = (found.path ?? []).map((part) =>
          typeof part === 'object'
            ? String(part.key)
            : typeof part === 'number'
              ? part
              : String(part),
        )
        issue([...path, ...inner], found.message)
      }
    })
  })
}

/** An entry without `provider` that is no provider object: an HTTP upstream of the group's family. */
function isHttpEntry(entry: unknown): boolean {
  if (typeof entry !== 'object' || entry === null || 'provider' in entry) return false
  return typeof (entry as { send?: unknown }).send !== 'function'
}

const builtInNames = new Set(createKindRegistry().keys())

/** Whether a kind is one of the gateway's own, whose entries the config schema checks. */
export function isBuiltIn(name: string): boolean {
  return builtInNames.has(name)
}
