/** What the command line asks for. */
export type CliArgs = {
  config: string
  port: number
  host: string
  /** Print a plaintext key from the config and a curl line (the demo's `npm start`). */
  printDemo: boolean
  /** Do not apply schema migrations at start (with `state.postgres`); only check the version. */
  noMigrate: boolean
}

/** The usage text, printed with `--help` and with a bad command line. */
export const usage = `Usage: model-gateway --config <file.json> [--port 8787] [--host 127.0.0.1] [--print-demo] [--no-migrate]
       model-gateway migrate [--config <file.json> | --database <url>]   (default: $DATABASE_URL)
       model-gateway keys create|list|revoke|update|usage …   (model-gateway keys --help)
       model-gateway teams create|list|update|usage …   (model-gateway teams --help)
       model-gateway usage [--since YYYY-MM-DD] [--until YYYY-MM-DD]   spend of every key per day and model
       model-gateway --version

  --config      the gateway config (JSON; "\${NAME}" reads an environment variable)
  --port        port to listen on (default 8787; 0 picks a free one)
  --host        address to bind (default 127.0.0.1)
  --print-demo  print the first plaintext key of the config and a ready-to-paste curl line
  --no-migrate  with "state.postgres": do not apply schema migrations at start, only check them`

/**
 * Parses `argv` (without the node and script paths).
 *
 * @throws Error with a one-line reason for a bad command line
 */
export function parseCliArgs(argv: readonly string[]): CliArgs | 'help' | 'version' {
  const args: Partial<CliArgs> = {
    port: 8787,
    host: '127.0.0.1',
    printDemo: false,
    noMigrate: false,
  }
  for (let index = 0; index < argv.length; index += 1) {
    const [flag, inline] = argv[index]!.split(/=(.*)/s, 2) as [string, string | undefined]
    const value = () => {
      const next = inline ?? argv[++index]
      if (next === undefined) throw new Error(`${flag} needs a value`)
      return next
    }
    switch (flag) {
      case '--help':
      case '-h':
        return 'help'
      case '--version':
      case '-v':
        return 'version'
      case '--config':
      case '-c':
        args.config = value()
        break
      case '--port':
      case '-p': {
        const port = Number(value())
        if (!Number.isInteger(port) || port < 0 || port > 65535)
          throw new Error('--port takes 0 to 65535')
        args.port = port
        break
      }
      case '--host':
        args.host = value()
        break
      case '--print-demo':
        args.printDemo = true
        break
      case '--no-migrate':
        args.noMigrate = true
        break
      default:
        throw new Error(`unknown option ${flag}`)
    }
  }
  if (args.config === undefined) throw new Error('--config is required')
  return args as CliArgs
}
