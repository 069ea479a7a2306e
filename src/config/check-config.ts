import * as z from 'zod/mini'
import en from 'zod/v4/locales/en.js'

/**
 * zod's English messages. `zod/mini` loads no locale by itself; importing this one file (instead
 * of `zod/locales`, or classic `zod`, which loads every locale and registers English) keeps the
 * bundled core to the one it uses.
 */
const englishErrors = en().localeError

/**
 * Checks a config value against its schema, with English messages. They are passed to this parse
 * only, not set through `z.config()`, so the gateway never changes the messages of an
 * application's own zod schemas.
 */
export function checkConfig<T extends z.ZodMiniType>(
  schema: T,
  value: unknown,
): ReturnType<typeof z.safeParse<T>> {
  return z.safeParse(schema, value, { error: englishErrors })
}
