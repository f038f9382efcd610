// A scenario tool's `parameters` (a JSON Schema) rebuilt with TypeBox's own
// builders (`Type.Object`, `Type.String`, …), for tools whose scenario says
// `"parametersKind": "typebox"`. pi 0.85 converts arguments with TypeBox's
// `Value.Convert`, which acts only on schemas carrying TypeBox's (non-
// enumerable) '~kind' marker, i.e. built with `Type.*`; a plain JSON Schema
// gets only pi's own coercion (contract/pipeline/src/validation/ models the same steps).
// The subset is the one scenarios use; anything else is refused, so a
// scenario never silently tests a different schema than it says.

const STRUCTURAL = new Set(['type', 'properties', 'required', 'items', 'anyOf', 'const', 'additionalProperties']);

function optionsOf(schema) {
  const out = {};
  for (const [k, v] of Object.entries(schema)) if (!STRUCTURAL.has(k)) out[k] = v;
  return out;
}

export function typeboxOf(Type, schema) {
  if (schema === true || (typeof schema === 'object' && schema !== null && Object.keys(schema).length === 0)) {
    return Type.Unknown();
  }
  if (typeof schema !== 'object' || schema === null) throw new Error(`not a schema: ${JSON.stringify(schema)}`);
  const options = optionsOf(schema);
  if (Object.hasOwn(schema, 'const')) return Type.Literal(schema.const, options);
  if (Object.hasOwn(schema, 'anyOf')) return Type.Union(schema.anyOf.map((s) => typeboxOf(Type, s)), options);
  switch (schema.type) {
    case 'object': {
      const required = new Set(schema.required ?? []);
      const properties = {};
      for (const [k, s] of Object.entries(schema.properties ?? {})) {
        const t = typeboxOf(Type, s);
        properties[k] = required.has(k) ? t : Type.Optional(t);
      }
      if (Object.hasOwn(schema, 'additionalProperties')) {
        const a = schema.additionalProperties;
        options.additionalProperties = typeof a === 'boolean' ? a : typeboxOf(Type, a);
      }
      return Type.Object(properties, options);
    }
    case 'array':
      return Type.Array(typeboxOf(Type, schema.items ?? {}), options);
    case 'string':
      return Type.String(options);
    case 'number':
      return Type.Number(options);
    case 'integer':
      return Type.Integer(options);
    case 'boolean':
      return Type.Boolean(options);
    case 'null':
      return Type.Null(options);
    default:
      throw new Error(`parametersKind "typebox": no TypeBox builder for ${JSON.stringify(schema)}`);
  }
}
