import * as Cookies from "@effect/platform/Cookies"
import * as HttpApp from "@effect/platform/HttpApp"
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import type * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import { Effect } from "effect"
import { ServerResponse } from "node:http"

/**
 * Writes a response with a string body (`jsonResponse`) straight to the Node
 * response of `request`, headers and body in one write, so the server's own
 * writing finds it ended and the fiber does not wait for the socket. Nothing
 * happens for a request of another host (a web handler), a `HEAD`, another
 * kind of body, or when the host installed a pre-response handler (which must
 * still see the response): the server writes those as usual.
 * @internal
 */
export const write = (
  request: HttpServerRequest.HttpServerRequest,
  response: HttpServerResponse.HttpServerResponse
): Effect.Effect<HttpServerResponse.HttpServerResponse> =>
  Effect.withFiberRuntime((fiber) => {
    const node: unknown = NodeHttpServerRequest.toServerResponse(request)
    const body = response.body
    if (
      node instanceof ServerResponse && !node.headersSent && request.method !== "HEAD" &&
      body._tag === "Raw" && typeof body.body === "string" && Cookies.isEmpty(response.cookies) &&
      fiber.getFiberRef(HttpApp.currentPreResponseHandlers)._tag === "None"
    ) {
      node.writeHead(response.status, response.headers)
      node.end(body.body)
    }
    return Effect.succeed(response)
  })
