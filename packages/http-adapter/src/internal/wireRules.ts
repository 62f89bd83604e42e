/**
 * The wire-format rules a host binding checks before `RequestHandler`: a
 * missing or repeated `Host`, a repeated `Authorization`, `Content-Length` or
 * `Content-Type`, an `Expect` other than `100-continue` (record 0014).
 *
 * @internal
 */
import type * as Http from "node:http"
import type { InvalidHttpReason } from "../ProtocolError.js"

const host = 1
const authorization = 2
const contentLength = 4
const contentType = 8

const repeatedReasons: Readonly<Record<number, InvalidHttpReason>> = {
  [host]: "repeated_host",
  [authorization]: "repeated_authorization",
  [contentLength]: "repeated_content_length",
  [contentType]: "repeated_content_type"
}

/** Which of the four a header name (any case) is, 0 for any other. */
const watched = (name: string): number => {
  switch (name.length) {
    case 4:
      return name === "Host" || name === "host" || name.toLowerCase() === "host" ? host : 0
    case 12:
      return name === "Content-Type" || name === "content-type" || name.toLowerCase() === "content-type"
        ? contentType
        : 0
    case 13:
      return name === "Authorization" || name === "authorization" || name.toLowerCase() === "authorization"
        ? authorization
        : 0
    case 14:
      return name === "Content-Length" || name === "content-length" || name.toLowerCase() === "content-length"
        ? contentLength
        : 0
    default:
      return 0
  }
}

/**
 * The repeated header among `rawHeaders` (Node's names and values alternating), if any.
 *
 * @internal
 */
export const repeatedInRaw = (rawHeaders: ReadonlyArray<string>): InvalidHttpReason | undefined => {
  let seen = 0
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const which = watched(rawHeaders[i]!)
    if (which === 0) continue
    if ((seen & which) !== 0) return repeatedReasons[which]
    seen |= which
  }
  return undefined
}

const isContinue = (expect: string): boolean => expect.trim().toLowerCase() === "100-continue"

/**
 * Why a request Node parsed must be refused before it is handled, if it must.
 *
 * @internal
 */
export const refusalOfNode = (request: Http.IncomingMessage): InvalidHttpReason | undefined => {
  const headers = request.headers
  if (headers.host === undefined && request.httpVersionMajor === 1 && request.httpVersionMinor === 1) {
    return "missing_host"
  }
  // Requests made by hand (not by Node's parser) may have no raw headers.
  const repeated = request.rawHeaders === undefined ? undefined : repeatedInRaw(request.rawHeaders)
  if (repeated !== undefined) return repeated
  const expect = headers.expect
  return expect === undefined || isContinue(expect) ? undefined : "expectation_failed"
}

/** A second credentials after the join: `, <scheme> ...` (a parameter of one credentials is `, name=value`). */
const secondCredentials = /, [!#$%&'*+.^_`|~0-9A-Za-z-]+(?: |$)/

const valueOf = (headers: Readonly<Record<string, string | ReadonlyArray<string> | undefined>>, name: string) => {
  const value = headers[name]
  return value === undefined || typeof value === "string" ? value : value.join(", ")
}

/**
 * The repeated header of a request whose headers come merged (a web `Headers`
 * joins repeated values with ", ").
 *
 * @internal
 */
export const repeatedInMerged = (
  headers: Readonly<Record<string, string | ReadonlyArray<string> | undefined>>
): InvalidHttpReason | undefined => {
  if (valueOf(headers, "host")?.includes(", ")) return "repeated_host"
  const credentials = valueOf(headers, "authorization")
  if (credentials !== undefined && credentials.includes(", ") && secondCredentials.test(credentials)) {
    return "repeated_authorization"
  }
  if (valueOf(headers, "content-length")?.includes(", ")) return "repeated_content_length"
  if (valueOf(headers, "content-type")?.includes(", ")) return "repeated_content_type"
  return undefined
}
