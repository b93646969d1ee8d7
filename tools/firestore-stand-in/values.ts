/**
 * Firestore values as plain data, and field-path surgery on them.
 *
 * We compute a commit's outcome on plain objects of the shape the library's
 * `toV1DocumentObject()` yields and `Value.fromObject()` accepts (exactly one `<kind>_value`
 * key), because the library's own field classes are not exported. Incoming protobuf messages
 * must be read through their `value_type` oneof getter: their `toObject()` fills in every oneof
 * member with a default and so cannot tell 0 from null from false.
 */

export type Timestamp = { seconds: number; nanos: number };
export type Fields = { [key: string]: Val };
export type Val =
  | { null_value: 0 }
  | { boolean_value: boolean }
  | { integer_value: number }
  | { double_value: number }
  | { timestamp_value: Timestamp }
  | { string_value: string }
  | { bytes_value: Uint8Array }
  | { reference_value: string }
  | { geo_point_value: { latitude: number; longitude: number } }
  | { array_value: { values: Val[] } }
  | { map_value: { fields: Fields } };

/** A generated `google.firestore.v1.Value` message, duck-typed: each generated file bundles its own classes. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a generated message, read field by field
export type ProtoValue = { value_type: string } & Record<string, any>;

export function fromProto(value: ProtoValue): Val {
  switch (value.value_type) {
    case "null_value":
      return { null_value: 0 };
    case "boolean_value":
      return { boolean_value: Boolean(value.boolean_value) };
    case "integer_value":
      return { integer_value: Number(value.integer_value) };
    case "double_value":
      return { double_value: Number(value.double_value) };
    case "timestamp_value":
      return {
        timestamp_value: {
          seconds: Number(value.timestamp_value.seconds),
          nanos: Number(value.timestamp_value.nanos),
        },
      };
    case "string_value":
      return { string_value: value.string_value };
    case "bytes_value":
      return { bytes_value: value.bytes_value };
    case "reference_value":
      return { reference_value: value.reference_value };
    case "geo_point_value":
      return {
        geo_point_value: {
          latitude: value.geo_point_value.latitude,
          longitude: value.geo_point_value.longitude,
        },
      };
    case "array_value":
      return { array_value: { values: value.array_value.values.map(fromProto) } };
    case "map_value":
      return { map_value: { fields: fieldsFromProto(value.map_value.fields) } };
    default:
      throw new Error(`unsupported value type ${value.value_type}`);
  }
}

export function fieldsFromProto(fields: Map<string, ProtoValue>): Fields {
  return Object.fromEntries(Array.from(fields, ([key, value]) => [key, fromProto(value)]));
}

export function numberOf(value: Val | undefined): number | null {
  if (value && "integer_value" in value) return value.integer_value;
  if (value && "double_value" in value) return value.double_value;
  return null;
}

/** Firestore equality as arrayUnion/arrayRemove use it: 1 equals 1.0, NaN equals NaN. */
export function sameValue(a: Val, b: Val): boolean {
  const na = numberOf(a);
  const nb = numberOf(b);
  if (na !== null || nb !== null) return na === nb || (Number.isNaN(na) && Number.isNaN(nb));
  const [kind] = Object.keys(a);
  if (kind === undefined || !(kind in b)) return false;
  if ("array_value" in a && "array_value" in b) {
    const [x, y] = [a.array_value.values, b.array_value.values];
    return x.length === y.length && x.every((v, i) => sameValue(v, y[i] as Val));
  }
  if ("map_value" in a && "map_value" in b) {
    const [x, y] = [a.map_value.fields, b.map_value.fields];
    const keys = Object.keys(x);
    return keys.length === Object.keys(y).length && keys.every((k) => k in y && sameValue(x[k] as Val, y[k] as Val));
  }
  if ("bytes_value" in a && "bytes_value" in b) return Buffer.from(a.bytes_value).equals(Buffer.from(b.bytes_value));
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Splits `a.b`, `` `odd.name`.c `` into segments, honouring backquotes and backslash escapes. */
export function parseFieldPath(path: string): string[] {
  const segments: string[] = [];
  let i = 0;
  while (i < path.length) {
    let segment = "";
    if (path[i] === "`") {
      i++;
      while (i < path.length && path[i] !== "`") {
        if (path[i] === "\\") i++;
        segment += path[i++] ?? "";
      }
      i++;
    } else {
      const end = path.indexOf(".", i);
      segment = path.slice(i, end < 0 ? path.length : end);
      i += segment.length;
    }
    segments.push(segment);
    if (path[i] === ".") i++;
  }
  return segments;
}

export function getAt(fields: Fields, path: string[]): Val | undefined {
  const [head, ...rest] = path;
  if (head === undefined) return undefined;
  const value = fields[head];
  if (rest.length === 0 || value === undefined) return value;
  return "map_value" in value ? getAt(value.map_value.fields, rest) : undefined;
}

/** Returns a copy with `value` at `path` (or the field removed when `value` is undefined). */
export function putAt(fields: Fields, path: string[], value: Val | undefined): Fields {
  const [head, ...rest] = path;
  if (head === undefined) return fields;
  const copy = { ...fields };
  if (rest.length === 0) {
    if (value === undefined) delete copy[head];
    else copy[head] = value;
    return copy;
  }
  const child = copy[head];
  if (value === undefined && (child === undefined || !("map_value" in child))) return copy;
  const childFields = child && "map_value" in child ? child.map_value.fields : {};
  copy[head] = { map_value: { fields: putAt(childFields, rest, value) } };
  return copy;
}
