import * as HttpServerResponse from "@effect/platform/HttpServerResponse"

/** @internal */
export const contentType = "application/json; charset=utf-8"

/**
 * A JSON response with the interface's media type. The body stays a string
 * (with its byte length), so a Node server writes headers and body in one
 * write.
 * @internal
 */
export const jsonResponse = (
  body: unknown,
  options?: { readonly status?: number; readonly headers?: Record<string, string> }
): HttpServerResponse.HttpServerResponse => {
  const text = JSON.stringify(body)
  return HttpServerResponse.raw(text, {
    status: options?.status ?? 200,
    contentType,
    contentLength: Buffer.byteLength(text),
    ...(options?.headers === undefined ? {} : { headers: options.headers })
  })
}
