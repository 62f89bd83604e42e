/**
 * A PostgreSQL URL's form for messages and logs, shared by `PostgresUrl` and `PostgresStore`.
 *
 * @internal
 */

/** `url` with its password, and any parameter named like a secret, replaced by `***`. @internal */
export const redact = (url: string): string => {
  if (!URL.canParse(url)) return "<an invalid PostgreSQL URL>"
  const parsed = new URL(url)
  if (parsed.password !== "") parsed.password = "***"
  for (const name of [...parsed.searchParams.keys()]) {
    if (/pass|secret|token|key/i.test(name)) parsed.searchParams.set(name, "***")
  }
  return parsed.toString()
}
