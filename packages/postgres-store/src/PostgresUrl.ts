/**
 * PostgreSQL connection URLs as the store takes them (`postgres://` or
 * `postgresql://`, libpq's URL form), and their form for messages and logs.
 * It imports no driver: a command line can check and print a URL without
 * loading the store (`@animal-store/postgres-store/PostgresUrl`).
 *
 * @since 1.0.0
 */

/**
 * Whether `text` is a PostgreSQL URL with a host (in its authority, or as a
 * `host` parameter for a unix socket).
 *
 * @since 1.0.0
 * @category refinements
 */
export const isValid = (text: string): boolean => {
  if (!/^postgres(ql)?:\/\//.test(text) || !URL.canParse(text)) return false
  const url = new URL(text)
  return url.hostname !== "" || url.searchParams.has("host")
}

/**
 * `url` with its password, and any parameter named like a secret, replaced by
 * `***`. A text that is not a URL is replaced as a whole.
 *
 * @since 1.0.0
 * @category conversions
 */
export const redact = (url: string): string => {
  if (!URL.canParse(url)) return "<an invalid PostgreSQL URL>"
  const parsed = new URL(url)
  if (parsed.password !== "") parsed.password = "***"
  for (const name of [...parsed.searchParams.keys()]) {
    if (/pass|secret|token|key/i.test(name)) parsed.searchParams.set(name, "***")
  }
  return parsed.toString()
}
