import * as HttpServerResponse from "@effect/platform/HttpServerResponse"

/** @internal */
export const contentType = "application/json; charset=utf-8"

/**
 * A JSON response with the interface's media type.
 * @internal
 */
export const jsonResponse = (
  body: unknown,
  options?: { readonly status?: number; readonly headers?: Record<string, string> }
): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.text(JSON.stringify(body), {
    status: options?.status ?? 200,
    contentType,
    ...(options?.headers === undefined ? {} : { headers: options.headers })
  })
