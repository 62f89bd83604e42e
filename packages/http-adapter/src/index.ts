/**
 * @since 1.0.0
 */
export * as AccessLog from "./AccessLog.js"
export * as ClientAddress from "./ClientAddress.js"
export * as Cors from "./Cors.js"
export * as ErrorResponse from "./ErrorResponse.js"
export * as HttpAdapter from "./HttpAdapter.js"
export * as HttpExchange from "./HttpExchange.js"
export * as NodeServer from "./NodeServer.js"
export * as OpenApiDocument from "./OpenApiDocument.js"
export * as PetsApi from "./PetsApi.js"
export * as PetsHandlers from "./PetsHandlers.js"
export * as ProtocolError from "./ProtocolError.js"
export * as RequestHandler from "./RequestHandler.js"
export * as RequestObserver from "./RequestObserver.js"
export * as RequestBody from "./RequestBody.js"
export * as ResponseHeaders from "./ResponseHeaders.js"
export * as Routes from "./Routes.js"
