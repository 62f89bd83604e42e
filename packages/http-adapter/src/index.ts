/**
 * @since 1.0.0
 */
export * as AccessLog from "./AccessLog.js"
export * as AccessMiddleware from "./AccessMiddleware.js"
export * as ClientAddress from "./ClientAddress.js"
export * as Cli from "./Cli.js"
export * as ErrorResponse from "./ErrorResponse.js"
export * as HttpAdapter from "./HttpAdapter.js"
export * as KeyProvisioning from "./KeyProvisioning.js"
export * as OpenApiDocument from "./OpenApiDocument.js"
export * as PetsApi from "./PetsApi.js"
export * as PetsHandlers from "./PetsHandlers.js"
export * as ProtocolError from "./ProtocolError.js"
export * as RequestBody from "./RequestBody.js"
export * as ResponseHeaders from "./ResponseHeaders.js"
export * as Routes from "./Routes.js"
export * as StandaloneServer from "./StandaloneServer.js"
export * as StoreLocation from "./StoreLocation.js"
