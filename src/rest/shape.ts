/**
 * The JSON of a REST response from the data of a GraphQL result. The contract marks every
 * candidate field but publicId optional and none nullable, so a field GraphQL answers with
 * null (not recorded, or a reference that resolves to nothing) is omitted, at every depth.
 * Arrays keep their elements (an empty `content` stays `[]`); list items are never null in
 * the schema.
 */
export function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.filter((item) => item !== null).map(withoutNulls);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      if (item !== null && item !== undefined) out[key] = withoutNulls(item);
    }
    return out;
  }
  return value;
}
