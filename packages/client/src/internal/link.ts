/**
 * The target of the `Link` header's relation `rel`, or `undefined`.
 * `Link: </v1/pets?limit=20&cursor=c1.x>; rel="next", </v1/pets>; rel="successor-version"`
 * @internal
 */
export const target = (header: string | undefined, rel: string): string | undefined => {
  if (header === undefined) return undefined
  for (const match of header.matchAll(/<([^>]*)>((?:\s*;\s*[^;,]+)*)/g)) {
    const params = match[2] ?? ""
    const rels = /;\s*rel\s*=\s*(?:"([^"]*)"|([^\s;,]+))/i.exec(params)
    const names = (rels?.[1] ?? rels?.[2] ?? "").toLowerCase().split(/\s+/)
    if (names.includes(rel)) return match[1]
  }
  return undefined
}
