import { describe, expect, it } from 'vitest';
import { parseMetadataJson, stringifyJson } from './metadata-json';

describe('metadata JSON', () => {
  it('keeps 64-bit ids exact and reads every id field as a bigint', () => {
    const text = '{"current-snapshot-id":3051729675574597004,"snapshots":[{"snapshot-id":7,"parent-snapshot-id":-1,"sequence-number":3,"x":-9223372036854775808}],'
      + '"refs":{"main":{"snapshot-id":3051729675574597004,"type":"branch"}},"f":1.5,"e":1e+21,"big":12345678901234567890}';
    const v = parseMetadataJson(text) as Record<string, any>;
    expect(v['current-snapshot-id']).toBe(3051729675574597004n);
    expect(v.snapshots[0]).toEqual({ 'snapshot-id': 7n, 'parent-snapshot-id': -1n, 'sequence-number': 3, x: -9223372036854775808n });
    expect(v.refs.main['snapshot-id']).toBe(3051729675574597004n);
    expect([v.f, v.e, v.big]).toEqual([1.5, 1e21, 12345678901234567890n]);
    expect(stringifyJson(v, 0)).toBe(text);
  });

  it('reads a Java-written file (Jackson layout) exactly and writes every id back as its digits', () => {
    // trimmed from fixtures/iceberg-foreign/java/bunnies/metadata/v3.metadata.json
    const text = `{
  "format-version" : 2,
  "last-sequence-number" : 1,
  "current-snapshot-id" : 4951213507629824583,
  "refs" : {
    "main" : {
      "snapshot-id" : 4951213507629824583,
      "type" : "branch"
    }
  },
  "snapshots" : [ {
    "sequence-number" : 1,
    "snapshot-id" : 4951213507629824583,
    "parent-snapshot-id" : 9158179788527662767,
    "timestamp-ms" : 1743410787268,
    "summary" : { "operation" : "append", "added-records" : "15" }
  } ],
  "statistics" : [ { "snapshot-id" : 6458828015811002920, "statistics-path" : "s3a://b/t/stats.puffin", "file-size-in-bytes" : 412 } ],
  "snapshot-log" : [ { "timestamp-ms" : 1743410787268, "snapshot-id" : 4951213507629824583 } ],
  "metadata-log" : [ ]
}`;
    const v = parseMetadataJson(text) as Record<string, any>;
    expect(v.snapshots[0]['parent-snapshot-id']).toBe(9158179788527662767n);
    expect(v.statistics[0]['snapshot-id']).toBe(6458828015811002920n);
    expect(v.statistics[0]['file-size-in-bytes']).toBe(412);
    const out = stringifyJson(v, 2);
    const digits = (s: string) => [...s.matchAll(/"(?:snapshot-id|parent-snapshot-id|current-snapshot-id)"\s*:\s*(\d+)/g)].map((m) => m[1]);
    expect(digits(out)).toEqual(digits(text));
    expect(digits(text)).toHaveLength(6);
    expect(stringifyJson(parseMetadataJson(out), 2)).toBe(out);
  });

  it('reads what JSON.parse reads and writes what JSON.stringify writes, for JSON without ids or big integers', () => {
    const texts = [
      JSON.stringify({ s: 'a"b\\c\u0001\u2028😀\ud800', n: [0, -0.5, 1e-7, 2.5e300, -3, [], {}, [[{}]]], t: true, f: false, z: null, '': '', 'sequence-number': 9007199254740991 }),
      '  [ 1 , "x" , { "a" : [ ] } ]  ', '"just a string"', '42', '{"__proto__": {"a": 1}}', '{"a":"\\u00e9\\n\\/"}',
    ];
    for (const t of texts) {
      const ours = parseMetadataJson(t);
      expect(ours).toEqual(JSON.parse(t));
      expect(stringifyJson(ours, 2)).toBe(JSON.stringify(JSON.parse(t), null, 2));
      expect(stringifyJson(ours, 0)).toBe(JSON.stringify(JSON.parse(t)));
    }
    // "__proto__" is an own key, as JSON.parse makes it, not the object's prototype
    expect(Object.getPrototypeOf(parseMetadataJson('{"__proto__": {"a": 1}}'))).toBe(Object.prototype);
    const odd = { a: undefined, b: [undefined, () => 1], c: Number.NaN, d: new Date(0) };
    expect(stringifyJson(odd, 2)).toBe(JSON.stringify(odd, null, 2));
  });

  it('refuses text that is not JSON, with the position', () => {
    for (const bad of ['', '{', '{"a":1,}', '[1 2]', '{"a" 1}', '01', '"open', 'nul', '{"a":1} x', '-', '1.', "{'a':1}"]) {
      expect(() => JSON.parse(bad)).toThrow();
      expect(() => parseMetadataJson(bad), bad).toThrow(SyntaxError);
    }
  });
});
