import { describe, expect, test } from 'vitest';
import { parseDocBlocks } from './docs-blocks';
import { parseProject } from './project';

describe('docs blocks', () => {
  test('blocks are read trimmed, with whitespace control; an unclosed one names its line', () => {
    expect(parseDocBlocks('# Notes\n{% docs a %}\n  Text of a.\n{% enddocs %}\n{%- docs b -%}B{%- enddocs -%}\n', 'models/x.md')).toEqual([
      { name: 'a', path: 'models/x.md', contents: 'Text of a.' }, { name: 'b', path: 'models/x.md', contents: 'B' },
    ]);
    expect(() => parseDocBlocks('{% docs a %}A{% enddocs %}\n\n{% docs b %}\nB\n', 'models/x.md')).toThrow('models: models/x.md: line 3: {% docs %} is never closed (expected {% enddocs %})');
  });

  test('doc() renders model and column descriptions; an unknown name and a name defined twice are errors naming them', () => {
    const files = {
      'models/orders.sql': 'SELECT 1 AS id\n',
      'models/docs/orders.md': '{% docs orders %}One row per order.{% enddocs %}\n{% docs id %}The key.{% enddocs %}\n',
      'models/schema.yml': "models:\n  - name: orders\n    description: '{{ doc(\"orders\") }}'\n    columns:\n      - name: id\n        description: \"Key: {{ doc('id') }}\"\n        data_type: UInt8\n",
    };
    const p = parseProject('/tmp/p', files);
    expect(p.errors).toEqual([]);
    expect(p.models.get('orders')).toMatchObject({ description: 'One row per order.', columns: [{ name: 'id', description: 'Key: The key.', data_type: 'UInt8' }] });
    expect(p.docs?.map((d) => d.name)).toEqual(['id', 'orders']);
    const bad = parseProject('/tmp/p', { ...files, 'models/schema.yml': files['models/schema.yml'].replace("doc('id')", "doc('ids')"), 'macros/more.md': '{% docs orders %}again{% enddocs %}' });
    expect(bad.errors.map((e) => e.message)).toEqual([
      'models: docs block orders is defined twice: in macros/more.md and models/docs/orders.md',
      expect.stringMatching(/^models: models\/schema\.yml: orders\.columns\.id\.description: line 1: doc\('ids'\) names no docs block/),
    ]);
  });
});
