/**
 * The HTTP+JSON interface (`RequestHandler`) as a web-standard handler,
 * `(Request) => Promise<Response>`; it only converts the host's request and response.
 *
 * @since 1.0.0
 */
import type { Layer } from "effect"
import { Effect, ManagedRuntime } from "effect"
import * as ClientAddress from "./ClientAddress.js"
import * as ErrorResponse from "./ErrorResponse.js"
import type * as HttpExchange from "./HttpExchange.js"
import { answer, pathAndQuery } from "./internal/hostRequest.js"
import * as WireRules from "./internal/wireRules.js"
import * as RequestBody from "./RequestBody.js"
import * as RequestHandler from "./RequestHandler.js"

/**
 * Who sent a request to the web handler: the peer address of its connection.
 *
 * @since 1.0.0
 * @category models
 */
export interface Client {
  readonly remoteAddress?: string | undefined
}

/**
 * A web-standard handler and the disposal of its services.
 *
 * @since 1.0.0
 * @category models
 */
export interface WebHandler {
  /** Answers a request; without the peer address, requests without a valid key share one limit. */
  readonly handler: (request: Request, client?: Client) => Promise<Response>
  /** Closes the services (the store). */
  readonly dispose: () => Promise<void>
}

/** The web `Response`; a `HEAD` request's, a 204's and a 304's have no body. */
const toWeb = (response: HttpExchange.Response, method: string): Response =>
  new Response(
    method === "HEAD" || response.status === 204 || response.status === 304 ? null : response.body as string,
    { status: response.status, headers: response.headers }
  )

/**
 * The API as a web-standard handler on `services`, built on the first request
 * (a 500 for every request if they cannot be built).
 *
 * @since 1.0.0
 * @category constructors
 */
export const make = <E>(
  services: Layer.Layer<RequestHandler.Requirements, E>,
  options?: RequestHandler.Options & { readonly memoMap?: Layer.MemoMap | undefined }
): WebHandler => {
  const runtime = ManagedRuntime.make(services, options?.memoMap)
  const build = Effect.map(RequestHandler.makeHandlers(options), (handlers) => ({
    handlers,
    clientAddressOf: ClientAddress.make(options?.trustedProxies ?? [])
  }))
  let built: Promise<Effect.Effect.Success<typeof build>> | undefined
  return {
    handler: async (request, client) => {
      try {
        built ??= runtime.runPromise(build)
        const { clientAddressOf, handlers } = await built
        const exchange: HttpExchange.Request = {
          method: request.method,
          url: pathAndQuery(request.url),
          headers: Object.fromEntries(request.headers),
          remoteAddress: client?.remoteAddress,
          localOrigin: () => URL.canParse(request.url) ? new URL(request.url).origin : undefined,
          body: RequestBody.fromWeb(request.body)
        }
        const response = answer(handlers, clientAddressOf, exchange, WireRules.repeatedInMerged(exchange.headers))
        return toWeb(await runtime.runPromise(response), request.method)
      } catch {
        return toWeb(ErrorResponse.internalError, request.method)
      }
    },
    dispose: () => runtime.dispose()
  }
}
