/**
 * Checks a response against the OpenAPI document, as a client generated
 * from it would expect it: for an operation, its status is one the operation
 * documents, its body matches the documented schema (JSON Schema 2020-12,
 * with ajv), and every documented header is present when required and
 * matches its schema; for any other error, the `Error` schema.
 */
import { Ajv2020 } from "ajv/dist/2020.js"
import addFormatsModule from "ajv-formats"
import type { ValidateFunction } from "ajv"

// ajv-formats is CommonJS: its default export is the function, or holds it.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv2020
) => Ajv2020

type Json = Record<string, any>

export type Validate = (method: string, url: string, response: Response, body: string) => ReadonlyArray<string>

const templates = (document: Json) =>
  Object.keys(document.paths).map((template) => ({
    template,
    pattern: new RegExp("^" + template.replace(/\{[^}]+\}/g, "[^/]+") + "$")
  }))

/** A validator of responses against `document`, whose paths are relative to `basePath`. */
export const make = (document: Json, basePath = "/v1"): Validate => {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false })
  addFormats(ajv)
  ajv.addFormat("int64", { type: "number", validate: (n: number) => Number.isSafeInteger(n) })
  ajv.addSchema({ ...structuredClone(document), $id: "https://animal-store.test/openapi.json" })
  const compiled = new Map<string, ValidateFunction>()
  const compile = (pointer: string, schema: Json): ValidateFunction => {
    let validate = compiled.get(pointer)
    if (validate === undefined) {
      validate = ajv.compile({ ...schema, $id: `https://animal-store.test/check/${compiled.size}`, $defs: undefined })
      compiled.set(pointer, validate)
    }
    return validate
  }
  // `$ref`s inside the document resolve against it
  const resolve = (schema: Json): Json =>
    typeof schema.$ref === "string" && schema.$ref.startsWith("#/")
      ? { $ref: `https://animal-store.test/openapi.json${schema.$ref}` }
      : { allOf: [JSON.parse(JSON.stringify(schema).replaceAll("\"#/", "\"https://animal-store.test/openapi.json#/"))] }
  const paths = templates(document)
  const errorSchema = resolve({ $ref: "#/components/schemas/Error" })

  const check = (what: string, validate: ValidateFunction, value: unknown, problems: Array<string>) => {
    if (!validate(value)) problems.push(`${what}: ${ajv.errorsText(validate.errors)}`)
  }

  return (method, url, response, body) => {
    const problems: Array<string> = []
    const path = new URL(url, "http://x").pathname
    const relative = path.startsWith(basePath + "/") ? path.slice(basePath.length) : undefined
    const template = relative === undefined ? undefined : paths.find(({ pattern }) => pattern.test(relative))
    const item: Json | undefined = template === undefined ? undefined : document.paths[template.template]
    const operation: Json | undefined = item?.[method === "HEAD" ? "get" : method.toLowerCase()]
    const status = String(response.status)
    const isJson = (response.headers.get("content-type") ?? "").startsWith("application/json")
    if (operation === undefined) {
      if (response.status >= 400) {
        if (!isJson) problems.push(`${method} ${path} ${status}: not JSON`)
        else if (method !== "HEAD") check(`${method} ${path} ${status} body`, compile("Error", errorSchema), JSON.parse(body), problems)
      }
      return problems
    }
    const documented: Json | undefined = operation.responses[status]
    if (documented === undefined) {
      problems.push(`${operation.operationId}: status ${status} is not documented`)
      return problems
    }
    const where = `${operation.operationId} ${status}`
    for (const [name, header] of Object.entries<Json>(documented.headers ?? {})) {
      const value = response.headers.get(name)
      if (value === null) {
        if (header.required === true) problems.push(`${where}: header ${name} is missing`)
        continue
      }
      const schema: Json = header.schema
      const typed = schema.type === "integer" ? (/^-?[0-9]+$/.test(value) ? Number(value) : value) : value
      check(`${where} header ${name}`, compile(`${operation.operationId}/${status}/${name}`, resolve(schema)), typed, problems)
    }
    const content: Json | undefined = documented.content?.["application/json"]
    if (content !== undefined && method !== "HEAD" && response.status !== 304) {
      if (!isJson) problems.push(`${where}: not JSON`)
      else check(`${where} body`, compile(`${operation.operationId}/${status}`, resolve(content.schema)), JSON.parse(body), problems)
    }
    return problems
  }
}
