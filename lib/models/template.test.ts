import { describe, expect, test } from 'vitest';
import { lookupVar, parseProject } from './project';
import { renderTemplate, type TemplateContext } from './template';

const configs: Record<string, unknown>[] = [];
const ctx: TemplateContext = {
  ref: (n) => `\`m\`.\`${n}\``, source: (a, b) => `icebergLocal('${a}/${b}')`, config: (o) => { configs.push(o); return ''; },
  var: (n, d) => lookupVar({ x: 42, cols: ['a', 'b'], m: { k: 'v', n: [1, 2] } }, n, d, d !== undefined), is_incremental: () => true, this: '`m`.`self`',
};
const render = (t: string, preamble?: string) => renderTemplate(t, ctx, { file: 'models/t.sql', preamble });

describe('template subset', () => {
  test('ref, source, var, this, is_incremental, if/for/set/macro and filters', () => {
    expect(render("{% set cols = ['a', 'b'] %}{% macro q(c) %}`{{ c }}`{% endmacro %}SELECT {% for c in cols %}{{ q(c) }}{% if not loop.last %}, {% endif %}{% endfor %} FROM {{ ref('r') }} JOIN {{ source('lake', 'ns.t') }}{% if is_incremental() %} WHERE x > (SELECT max(x) FROM {{ this }}) LIMIT {{ var('x') }}{% endif %} -- {{ 'A,B'.split(',') | join('|') | lower }}"))
      .toBe("SELECT `a`, `b` FROM `m`.`r` JOIN icebergLocal('lake/ns.t') WHERE x > (SELECT max(x) FROM `m`.`self`) LIMIT 42 -- a|b");
  });

  test('config() keyword arguments reach the host as plain data', () => {
    configs.length = 0;
    expect(render("{{ config(materialized='incremental', unique_key=['id', 'b'], tags=['nightly'], enabled=true, opts={'__proto__': {'x': 1}}) }}SELECT 1")).toBe('SELECT 1');
    expect(configs[0]).toEqual({ materialized: 'incremental', unique_key: ['id', 'b'], tags: ['nightly'], enabled: true, opts: JSON.parse('{"__proto__": {"x": 1}}') });
    expect(Object.getPrototypeOf(configs[0].opts)).toBe(Object.prototype);
  });

  test('whitespace control, comments, set blocks, for-else, loop filters and loop variables', () => {
    expect(render('SELECT\n  {%- for c in var("cols") %}\n  {{ loop.index }}:{{ c }}{{ "," if not loop.last }}\n  {%- endfor %}\n{# a comment #}FROM t')).toBe('SELECT\n  1:a,\n  2:b\nFROM t');
    expect(render('{% set s %}a{{ 1 + 1 }}{% endset %}{{ s | upper }}')).toBe('A2');
    expect(render('{% for x in [] %}x{% else %}empty{% endfor %}')).toBe('empty');
    expect(render('{% for x in range(10) if x is odd %}{{ x }}{% endfor %}')).toBe('13579');
    expect(render('{% for x in range(3) %}{{ loop.index0 }}{{ loop.revindex }}{{ loop.first }}{{ loop.length }}{{ loop.cycle("a", "b") }};{% endfor %}')).toBe('03True3a;12False3b;21False3a;');
    expect(render('{% for k, v in var("m").items() %}{{ k }}={{ v }} {% endfor %}')).toBe("k=v n=[1, 2] ");
    expect(render("a  {{- ' b ' -}}  c {% filter upper %}x{{ 'y' }}{% endfilter %} {{ '%s-%d' | format('q', 3) }}")).toBe('a b c XY q-3');
    expect(render('{% for x in range(5) %}{% if x == 1 %}{% continue %}{% endif %}{% if x == 3 %}{% break %}{% endif %}{{ x }}{% endfor %}')).toBe('02');
  });

  test('macros with defaults, keyword arguments, varargs, call blocks with caller arguments and return()', () => {
    const pre = "{% macro cents(col, scale=100) %}({{ col }} / {{ scale }}){% endmacro %}\n{% macro wrap(tag) %}<{{ tag }}>{{ caller('x') }}</{{ tag }}>{% endmacro %}\n{% macro two() %}{{ return([1, 2]) }}{% endmacro %}";
    expect(render("{{ cents('amt') }} {{ cents('amt', scale=1000) }}", pre)).toBe('(amt / 100) (amt / 1000)');
    expect(render("{% call(v) wrap('b') %}in {{ v }}{% endcall %}", pre)).toBe('<b>in x</b>');
    expect(render('{{ two() | length }}', pre)).toBe('2');
    expect(render('{% macro m(a) %}{{ a }}{{ varargs | join }}{{ kwargs.k }}{% endmacro %}{{ m(1, 2, 3, k="z") }}')).toBe('123z');
  });

  test('range, cycler, joiner, namespace, dict and the common filters', () => {
    expect(render('{% set c = cycler("odd", "even") %}{{ c.next() }} {{ c.next() }} {{ c.next() }} {{ c.current }}')).toBe('odd even odd even');
    expect(render('{% set j = joiner(" AND ") %}{% for x in ["a", "b", "c"] %}{{ j() }}{{ x }}{% endfor %}')).toBe('a AND b AND c');
    expect(render('{% set ns = namespace(n=0) %}{% for x in range(1, 4) %}{% set ns.n = ns.n + x %}{% endfor %}{{ ns.n }}')).toBe('6');
    expect(render('{{ dict(a=1).a }} {{ {"b": 2}.get("b") }} {{ {"b": 2}.get("z", 9) }}')).toBe('1 2 9');
    expect(render("{{ ' Ab ' | trim | upper }}|{{ 'a-b' | replace('-', '_') }}|{{ none | default('d') }}|{{ nope | default('x') }}|{{ [3, 1, 2] | sort | join(',') }}|{{ 'abc' | length }}|{{ [1, 2] | first }}{{ [1, 2] | last }}|{{ 'x' | title }}"))
      .toBe('AB|a_b|None|x|1,2,3|3|12|X');
    expect(render("{{ ['b', 'a', 'b'] | unique | list | sort | join(', ') }}|{{ [{'n': 1}, {'n': 2}] | map(attribute='n') | sum }}|{{ ['a', 'B'] | map('upper') | join }}|{{ {'k': 1} | tojson }}|{{ 3.7 | int }}|{{ '5' | int + 1 }}|{{ 'q' ~ 1 }}"))
      .toBe('a, b|3|AB|{"k": 1}|3|6|q1');
    expect(render("{{ 'a' if x is defined else 'b' }} {{ 'a' in 'cat' }} {{ 2 ** 3 }} {{ 7 // 2 }} {{ 7 % 3 }} {{ 'ab'[::-1] }} {{ [1,2,3][1:] }}")).toBe('b True 8 3 1 ba [2, 3]');
  });

  test('errors name the undefined name and its line in the model file, not in the macro preamble', () => {
    expect(() => renderTemplate('SELECT 1\n{{ nope }}', ctx, { file: 'models/t.sql', preamble: '{% macro m() %}{% endmacro %}\n\n' })).toThrow("models: models/t.sql: line 2: 'nope' is undefined");
    expect(() => render('SELECT\n\n  {{ ref("a").nope() }}')).toThrow(/line 3: .*nope/);
    expect(() => render('SELECT 1\n{{ x | nofilter }}')).toThrow("line 2: no filter named 'nofilter'");
    expect(() => render("SELECT {{ var('unset') }}")).toThrow(/line 1: var\("unset"\) is not set and has no default/);
  });

  test('syntax errors point at the line; an unclosed block at its opening line', () => {
    expect(() => render('SELECT 1\n{% for x in y %}\n{{ x }}\n')).toThrow('models: models/t.sql: line 2: {% for %} is never closed (expected {% endfor %})');
    expect(() => render('{% if a %}\n{% endfor %}')).toThrow('line 2: {% endfor %} where {% endif %} was expected for the {% if %} of line 1');
    expect(() => render('SELECT\n1\n{{ a + }}')).toThrow(/line 3: /);
    expect(() => render("{% include '/etc/passwd' %}")).toThrow('{% include %} is not supported');
    expect(() => render("{% import 'macros.sql' as m %}")).toThrow('{% import %} is not supported');
    expect(() => render("SELECT '{{ oops ")).toThrow(/line 1: unexpected end/);
  });

  test('an error in a macro file names that file and its own line', () => {
    const p = parseProject('/p', {
      'macros/a.sql': '{% macro ok() %}1{% endmacro %}\n',
      'macros/b.sql': '{% macro broken() %}\n  {{ nope_in_macro }}\n{% endmacro %}\n',
      'macros/c.sql': '\n\n{% macro open() %}\n',
      'models/m.sql': 'SELECT {{ ok() }}',
    });
    expect(p.errors[0].message).toBe('models: models/m.sql: in macros/c.sql: line 3: {% macro %} is never closed (expected {% endmacro %})');
    const q = parseProject('/p', {
      'macros/a.sql': '{% macro ok() %}1{% endmacro %}\n',
      'macros/b.sql': '{% macro broken() %}\n  {{ nope_in_macro }}\n{% endmacro %}\n',
      'models/m.sql': 'SELECT {{ ok() }}, {{ broken() }}',
    });
    expect(q.errors[0].message).toBe("models: models/m.sql: 'nope_in_macro' is undefined (in macros/b.sql, line 2)");
  });

  test('a project whose model reaches for the process is refused at parse, naming the file', () => {
    const p = parseProject('/p', { 'models/evil.sql': "SELECT '{{ range.constructor(\"return process.env\")() }}'" });
    expect(p.errors).toHaveLength(1);
    expect(p.errors[0].message).toMatch(/^models: models\/evil\.sql: line 1: 'range\.constructor' is undefined/);
  });
});
