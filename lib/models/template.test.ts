import { describe, expect, test } from 'vitest';
import { parseProject } from './project';
import { renderTemplate, type TemplateContext } from './template';

const ctx: TemplateContext = {
  ref: (n) => `\`m\`.\`${n}\``, source: (a, b) => `icebergLocal('${a}/${b}')`, config: () => '',
  var: (n, d) => (n === 'x' ? 42 : d), is_incremental: () => true, this: '`m`.`self`',
};
const render = (t: string) => renderTemplate(t, ctx, { file: 'models/t.sql' });

describe('template subset', () => {
  test('ref, source, var, this, is_incremental, if/for/set/macro and filters', () => {
    expect(render("{% set cols = ['a', 'b'] %}{% macro q(c) %}`{{ c }}`{% endmacro %}SELECT {% for c in cols %}{{ q(c) }}{% if not loop.last %}, {% endif %}{% endfor %} FROM {{ ref('r') }} JOIN {{ source('lake', 'ns.t') }}{% if is_incremental() %} WHERE x > (SELECT max(x) FROM {{ this }}) LIMIT {{ var('x') }}{% endif %} -- {{ 'A,B'.split(',') | join('|') | lower }}"))
      .toBe("SELECT `a`, `b` FROM `m`.`r` JOIN icebergLocal('lake/ns.t') WHERE x > (SELECT max(x) FROM `m`.`self`) LIMIT 42 -- a|b");
  });
  test.each([
    ["{{ range.constructor('return process')() }}", /may not read \.constructor of a function/],
    ["{{ ''.constructor.constructor('return process')().exit() }}", /may not read \.constructor of a string/],
    ["{{ ref.constructor('return this')().process.mainModule.require('fs').readFileSync('/etc/passwd') }}", /may not read \.constructor/],
    ["{{ cycler.__proto__ }}", /may not read \.__proto__/],
    ["{{ joiner['call'] }}", /may not read \.call/],
    ["{% set o = {} %}{{ o.toString }}", /may not read \.toString of a object/],
    ["{% include '/etc/passwd' %}", /template not found: \/etc\/passwd/],
    ["{% import 'macros.sql' as m %}", /template not found/],
    ["{{ process.env }}", /undefined/],
    ["{{ require('fs') }}", /Unable to call `require`/],
    ["{{ global }}", /undefined/],
  ])('%s fails', (t, msg) => {
    expect(() => render(t)).toThrow(msg);
  });
  test('a project whose model reaches for the process is refused at parse, naming the file', () => {
    const p = parseProject('/p', { 'models/evil.sql': "SELECT '{{ range.constructor(\"return process.env\")() }}'" });
    expect(p.errors).toHaveLength(1);
    expect(p.errors[0].message).toMatch(/^models: models\/evil\.sql: .*may not read \.constructor/);
  });
  test('errors carry the line number of the model file, not of the macro preamble', () => {
    expect(() => renderTemplate('SELECT 1\n{{ nope }}', ctx, { file: 'models/t.sql', preamble: '{% macro m() %}{% endmacro %}\n\n' })).toThrow(/models\/t\.sql: line 2/);
  });
});
