/** A value or a promise of it: in-memory plug-ins answer synchronously, remote ones need not. */
export type MaybePromise<T> = T | Promise<T>
