import { Config, ConfigError, ConfigProvider, Effect, Either, Redacted } from "effect"

/** A setting read as text, then turned by `decode` into its value or the reason it is refused. @internal */
export const parsed = <A>(variable: string, decode: (text: string) => Either.Either<A, string>): Config.Config<A> =>
  Config.string(variable).pipe(
    Config.mapOrFail((text) => Either.mapLeft(decode(text), (reason) => ConfigError.InvalidData([], reason)))
  )

/** A decimal integer from `min` to `max`. @internal */
export const integerIn = (min: number, max: number) => (text: string): Either.Either<number, string> =>
  /^[0-9]+$/.test(text) && Number(text) >= min && Number(text) <= max
    ? Either.right(Number(text))
    : Either.left(`expected an integer from ${min} to ${max}, got "${text}"`)

/** An absolute http or https URL. @internal */
export const httpUrl = (text: string): Either.Either<string, string> => {
  const parsedUrl = URL.canParse(text) ? new URL(text) : undefined
  return parsedUrl !== undefined && (parsedUrl.protocol === "http:" || parsedUrl.protocol === "https:")
    ? Either.right(text)
    : Either.left(`expected an http or https URL, got "${text}"`)
}

/** `on` or `off` (also `true`/`false`, `1`/`0`). @internal */
export const onOff = (text: string): Either.Either<boolean, string> =>
  ["on", "true", "1"].includes(text)
    ? Either.right(true)
    : ["off", "false", "0"].includes(text)
    ? Either.right(false)
    : Either.left(`expected on or off, got "${text}"`)

/** Comma-separated items, blanks dropped. @internal */
export const list = (text: string): Either.Either<ReadonlyArray<string>, string> =>
  Either.right(text.split(",").map((item) => item.trim()).filter((item) => item.length > 0))

const isOrigin = (item: string): boolean => {
  if (!URL.canParse(item)) return false
  const origin = new URL(item)
  return (origin.protocol === "http:" || origin.protocol === "https:") && origin.origin === item.replace(/\/$/, "")
}

/** `*` or comma-separated origins (`https://app.example.com`). @internal */
export const origins = (text: string): Either.Either<ReadonlyArray<string>, string> =>
  Either.flatMap(list(text), (items) => {
    const bad = items.find((item) => item !== "*" && !isOrigin(item))
    return bad === undefined
      ? Either.right(items)
      : Either.left(`expected * or origins such as https://app.example.com, got "${bad}"`)
  })

/** A secret of at least 32 characters, never shown in a refusal. @internal */
export const secret = (text: string): Either.Either<Redacted.Redacted<string>, string> =>
  text.length >= 32 ? Either.right(Redacted.make(text)) : Either.left("expected at least 32 characters")

/**
 * The configuration of one command line: each flag's value under its
 * environment variable, over the environment itself. An empty variable is
 * unset, as an absent one.
 * @internal
 */
export const provider = (
  variables: Readonly<Record<string, string | undefined>>,
  flagValues: Readonly<Record<string, string>>,
  env: Readonly<Record<string, string | undefined>>
): ConfigProvider.ConfigProvider => {
  const fromFlags = new Map<string, string>()
  for (const [flag, value] of Object.entries(flagValues)) {
    const variable = variables[flag]
    if (variable !== undefined) fromFlags.set(variable, value)
  }
  const fromEnv = new Map<string, string>()
  for (const [variable, value] of Object.entries(env)) {
    if (value !== undefined && value !== "") fromEnv.set(variable, value)
  }
  return ConfigProvider.fromMap(fromFlags).pipe(ConfigProvider.orElse(() => ConfigProvider.fromMap(fromEnv)))
}

const firstProblem = (error: ConfigError.ConfigError): { readonly path: ReadonlyArray<string>; readonly message: string } =>
  error._op === "And" || error._op === "Or" ? firstProblem(error.left) : error

/**
 * Reads `config` from `provider`; a refusal is one line naming the flag of
 * the variable refused (`--port: ...`), or the variable when it has no flag.
 * @internal
 */
export const read = <A>(
  config: Config.Config<A>,
  configProvider: ConfigProvider.ConfigProvider,
  variables: Readonly<Record<string, string | undefined>>
): Either.Either<A, string> =>
  Either.mapLeft(Effect.runSync(Effect.either(configProvider.load(config))), (error) => {
    const { message, path } = firstProblem(error)
    const flag = Object.keys(variables).find((name) => variables[name] !== undefined && variables[name] === path[0])
    return flag === undefined ? message : `--${flag}: ${message}`
  })
