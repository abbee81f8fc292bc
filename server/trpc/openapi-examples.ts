type Json = Record<string, unknown>;

const UUID = '3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c';
const UUID_PATTERN = /\[0-9a-f\]\{8\}/;

/** Plausible values for the fields that appear across the API, by name (the rest follow their type). */
const BY_NAME: [RegExp, unknown][] = [
  [/(^|_)email$/, 'ada@example.com'],
  [/password$/, 'correct-horse-battery-staple'],
  [/display_name$/, 'Ada Lovelace'],
  [/_url$/, 'https://app.example.com/handler'],
  [/^access_token$/, 'eyJhbGciOiJFUzI1NiIsImtpZCI6Ii4uLiJ9.eyJzdWIiOiIuLi4ifQ.c2lnbmF0dXJl'],
  // Refresh tokens are opaque (224 random bits, base64url), not JWTs.
  [/^refresh_token$/, 'bGF0Y2ggZXhhbXBsZSByZWZyZXNoIHRva2VuIQ'],
  [/_millis$/, 1767225600000],
  [/^(code|nonce)$/, 'ABC123'],
  [/(^|_)id$/, UUID],
  [/^(name|description|title)$/, 'Example'],
];

function resolve(schema: Json, components: Json): Json {
  const ref = schema.$ref;
  if (typeof ref !== 'string') return schema;
  const name = ref.replace('#/components/schemas/', '');
  return ((components as Record<string, Json>)[name] ?? {}) as Json;
}

function stringExample(schema: Json, name: string): string {
  if (typeof schema.pattern === 'string' && UUID_PATTERN.test(schema.pattern)) return UUID;
  if (schema.format === 'email') return 'ada@example.com';
  if (schema.format === 'uri' || schema.format === 'url') return 'https://app.example.com/handler';
  if (schema.format === 'uuid') return UUID;
  if (schema.format === 'date-time') return '2026-01-01T00:00:00.000Z';
  if (schema.format === 'date') return '2026-01-01';
  const byName = BY_NAME.find(([re, value]) => re.test(name) && typeof value === 'string');
  let value = (byName?.[1] as string | undefined) ?? 'example';
  if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern).test(value)) {
    value =
      ['example', 'abc123', 'ABC123', 'a', 'example_id', '$read_members', 'example.com'].find((v) => new RegExp(schema.pattern as string).test(v)) ?? value;
  }
  const min = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const max = typeof schema.maxLength === 'number' ? schema.maxLength : Infinity;
  if (value.length < min) value = value.padEnd(min, 'x');
  return value.slice(0, max);
}

/**
 * An example value for a JSON schema (OpenAPI 3.1): required properties and, near the top,
 * optional ones; the first non-null alternative of a union; names decide plausible strings.
 */
export function exampleFor(schema: Json | undefined, components: Json, name = '', depth = 0): unknown {
  if (!schema || depth > 8) return undefined;
  if (/metadata$/.test(name)) return {};
  const s = resolve(schema, components);
  if ('example' in s) return s.example;
  if ('default' in s && s.default !== undefined) return s.default;
  if ('const' in s) return s.const;
  if (Array.isArray(s.enum)) return s.enum[0];
  for (const key of ['anyOf', 'oneOf'] as const) {
    const options = s[key] as Json[] | undefined;
    if (options) {
      const option = options.find((o) => resolve(o, components).type !== 'null') ?? options[0];
      return exampleFor(option, components, name, depth + 1);
    }
  }
  if (Array.isArray(s.allOf)) return Object.assign({}, ...(s.allOf as Json[]).map((o) => exampleFor(o, components, name, depth + 1)));
  const type = Array.isArray(s.type) ? (s.type as string[]).find((t) => t !== 'null') : (s.type as string | undefined);
  switch (type) {
    case 'string':
      return stringExample(s, name);
    case 'integer':
    case 'number': {
      const min = typeof s.minimum === 'number' ? s.minimum : typeof s.exclusiveMinimum === 'number' ? s.exclusiveMinimum + 1 : 1;
      const max = typeof s.maximum === 'number' ? s.maximum : Infinity;
      const byName = BY_NAME.find(([re, value]) => re.test(name) && typeof value === 'number')?.[1] as number | undefined;
      const wanted = byName !== undefined && byName >= min && byName <= max ? byName : Math.max(min, 1);
      return Math.min(wanted, max);
    }
    case 'boolean':
      return true;
    case 'array': {
      const item = exampleFor(s.items as Json | undefined, components, name, depth + 1);
      const count = Math.max(1, typeof s.minItems === 'number' ? s.minItems : 1);
      return item === undefined || (typeof s.maxItems === 'number' && s.maxItems === 0) ? [] : Array.from({ length: count }, () => item);
    }
    case 'object':
    case undefined: {
      const properties = (s.properties ?? {}) as Record<string, Json>;
      const required = new Set((s.required ?? []) as string[]);
      const out: Json = {};
      for (const [key, property] of Object.entries(properties)) {
        if (!required.has(key) && depth > 1) continue;
        const value = exampleFor(property, components, key, depth + 1);
        if (value !== undefined) out[key] = value;
      }
      return type === undefined && !s.properties ? undefined : out;
    }
    default:
      return undefined;
  }
}
