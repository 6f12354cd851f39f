// A corpus of known template sandbox escapes (nunjucks/Jinja SSTI payloads,
// the one of issue 20, prototype tricks) and denials of service. Each must
// yield nothing of the host: no process, no Function, no environment value,
// no file content, no JavaScript source, no global side effect; and each
// denial of service must end with the error of the limit it hit.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { lookupVar } from './project';
import { renderTemplate, type TemplateContext } from './template';

const CANARY = `canary-${Math.random().toString(36).slice(2)}`;
const g = globalThis as { __pwned?: unknown };
beforeAll(() => { process.env.TRIBUTARY_ESCAPE_CANARY = CANARY; });
afterAll(() => { delete process.env.TRIBUTARY_ESCAPE_CANARY; });

const ctx: TemplateContext = {
  ref: (n) => `\`m\`.\`${n}\``, source: (a, b) => `icebergLocal('${a}/${b}')`, config: () => '',
  var: (n, d) => lookupVar({ cols: ['a'] }, n, d, d !== undefined), is_incremental: () => false, this: '`m`.`self`',
};
const PRE = '{% macro m() %}{{ caller() }}{% endmacro %}';

function run(t: string): { out?: string; err?: string } {
  try { return { out: renderTemplate(t, ctx, { file: 'models/x.sql', preamble: PRE }) }; } catch (e) { return { err: (e as Error).message }; }
}

/** What no answer may hold: host objects, code, secrets, files. */
function assertInert(r: { out?: string; err?: string }) {
  const text = `${r.out ?? ''}\n${r.err ?? ''}`;
  expect(text).not.toContain(CANARY);
  expect(text).not.toMatch(/uid=\d|root:x:0:0|\[native code\]|=>|function\s*\(|\[object |class \w+ |ReferenceError|TypeError/);
  expect(g.__pwned).toBeUndefined();
}

const RUN = "'globalThis.__pwned = 1; return process.env.TRIBUTARY_ESCAPE_CANARY'";
const ESCAPES: [string, string][] = [
  ['the exploit of issue 20', `{% set __proto__ = range %}{% set F = constructor %}{{ F('return process.getBuiltinModule("child_process").execSync("id").toString()')() }}`],
  ['set __proto__ then a bare constructor', `{% set __proto__ = ref %}{{ constructor(${RUN})() }}`],
  ['set constructor then call it', `{% set constructor = range %}{{ constructor.constructor(${RUN})() }}`],
  ['set a namespace attribute __proto__', `{% set ns = namespace() %}{% set ns.__proto__ = range %}{{ ns.constructor(${RUN})() }}`],
  ['attribute constructor of a function', `{{ range.constructor(${RUN})() }}`],
  ['attribute constructor of a string', `{{ ''.constructor.constructor(${RUN})() }}`],
  ['attribute constructor of a number', `{{ (1).constructor.constructor(${RUN})() }}`],
  ['attribute constructor of a list', `{{ [].constructor.constructor(${RUN})() }}`],
  ['attribute constructor of a dict', `{{ {}.constructor.constructor(${RUN})() }}`],
  ['item constructor', `{{ ref['constructor']['constructor'](${RUN})() }}`],
  ['item __proto__ of a dict', `{% set o = {} %}{{ o['__proto__']['constructor'] }}`],
  ['item built from pieces', `{{ range['con' ~ 'structor'](${RUN})() }}`],
  ['prototype', '{{ range.prototype }}{{ ref.prototype.constructor }}'],
  ['a dict literal with a __proto__ key', `{% set o = {'__proto__': {'polluted': 1}} %}{{ {}.polluted }}`],
  ['cycler members', `{{ cycler('a').next.constructor(${RUN})() }}`],
  ['cycler prototype', '{{ cycler.__proto__ }}{{ cycler("a").__proto__ }}'],
  ['joiner members', `{{ joiner().constructor(${RUN})() }}`],
  ['joiner call/apply/bind', "{{ joiner['call'] }}{{ joiner.apply }}{{ joiner.bind }}"],
  ['namespace members', `{{ namespace.constructor(${RUN})() }}`],
  ['namespace object members', '{{ namespace().__proto__ }}'],
  ['filters applied to functions', '{{ range | string }}{{ ref ~ "" }}{{ range | list }}'],
  ['tojson of a function', '{{ ref | tojson }}'],
  ['attr filter', `{{ range | attr('constructor') }}`],
  ['map over a function', '{{ [range] | map(attribute="constructor") | first }}'],
  ['join of functions', '{{ [range, ref] | join(",") }}'],
  ['caller members', `{% call m() %}{{ caller.constructor(${RUN})() }}{% endcall %}`],
  ['caller printed', '{% macro p() %}{{ caller }}{% endmacro %}{% call p() %}x{% endcall %}'],
  ['caller outside a call block', '{{ caller() }}'],
  ['loop internals', '{% for x in [1] %}{{ loop.constructor }}{% endfor %}'],
  ['loop prototype and cycle', `{% for x in [1] %}{{ loop.__proto__ }}{{ loop.cycle.constructor(${RUN})() }}{% endfor %}`],
  ['loop printed', '{% for x in [1] %}{{ loop }}{% endfor %}'],
  ['string method tricks', `{{ 'x'.replace.constructor(${RUN})() }}`],
  ['string toString/valueOf', "{{ ''.toString() }}{{ ''.valueOf() }}"],
  ['string method call/apply', "{{ 'x'.split.call }}{{ 'x'.upper.apply }}"],
  ['Python-style SSTI', "{{ ''.__class__.__mro__[1].__subclasses__() }}"],
  ['config globals SSTI', '{{ config.__class__.__init__.__globals__ }}'],
  ['self and lipsum', '{{ self }}{{ lipsum.__globals__ }}'],
  ['host globals', '{{ process }}{{ global }}{{ globalThis }}{{ require }}{{ Function }}{{ module }}'],
  ['require call', "{{ require('fs').readFileSync('/etc/passwd') }}"],
  ['process env', '{{ process.env.TRIBUTARY_ESCAPE_CANARY }}'],
  ['a var() default that is a function', '{{ var("nope", range).constructor }}'],
  ['a config() argument that is a function', '{{ config(x=range) }}'],
  ['include', "{% include '/etc/passwd' %}"],
  ['import', "{% import '/etc/passwd' as p %}"],
  ['from import', "{% from '/etc/passwd' import x %}"],
  ['extends', "{% extends '/etc/passwd' %}"],
  ['this members', '{{ this.constructor }}{{ this.__proto__ }}'],
  ['list methods', '{{ [].push }}{{ [].map }}{{ [].constructor }}'],
  ['dict methods', '{{ {}.hasOwnProperty }}{{ {}.toString }}{{ {}.__defineGetter__ }}'],
  ['numbers', '{{ (1).toFixed }}{{ 1.constructor }}'],
];

describe('template escapes yield nothing of the host', () => {
  test.each(ESCAPES)('%s', (_name, t) => {
    const r = run(t);
    assertInert(r);
    // Member names a template invents are plain keys: they are undefined, or printed as inert text.
    if (r.out !== undefined) expect(r.out).toMatch(/^[\w<>,|'[\] ]*$/);
    else expect(r.err).toMatch(/^models: models\/x\.sql: /);
  });

  test('functions print as their name, never their source', () => {
    expect(run('{{ ref ~ "" }}|{{ range }}|{{ caller is defined }}')).toEqual({ out: '<function ref>|<function range>|False' });
    expect(run('{{ range | string }}').err).toMatch(/filter string: cannot take a function/);
    expect(run('{% macro p() %}{{ caller }}{% endmacro %}{% call p() %}x{% endcall %}')).toEqual({ out: '<macro caller>' });
  });
});

describe('denials of service end with the limit they hit', () => {
  test.each([
    ['runaway recursion', '{% macro r(n) %}{{ r(n + 1) }}{% endmacro %}{{ r(0) }}', /calls nest more than 64 deep/],
    ['mutual recursion', '{% macro a() %}{{ b() }}{% endmacro %}{% macro b() %}{{ a() }}{% endmacro %}{{ a() }}', /calls nest more than 64 deep/],
    ['a huge range', '{% for i in range(1000000000) %}x{% endfor %}', /range\(\) of 1000000000 items is over the limit/],
    ['a huge range, unused', '{% set r = range(1000000000) %}', /over the limit/],
    ['nested loops', '{% for a in range(100000) %}{% for b in range(100000) %}{% endfor %}{% endfor %}', /loops ran more than 200000 iterations/],
    ['string doubling', '{% set ns = namespace(s="x") %}{% for i in range(64) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}{{ ns.s }}', /string of more than 4000000 characters/],
    ['string repetition', "{{ 'x' * 1000000000 }}", /string of more than/],
    ['list doubling', '{% set ns = namespace(l=[1]) %}{% for i in range(64) %}{% set ns.l = ns.l + ns.l %}{% endfor %}', /over the limit of 100000/],
    ['list repetition', '{{ [1] * 1000000000 }}', /over the limit of 100000/],
    ['a self-containing list printed', '{% set l = [] %}{% set _ = l.append(l) %}{{ l }}', /nested more than 100 deep/],
    ['an exponential structure as JSON', '{% set ns = namespace(a=[1]) %}{% for i in range(60) %}{% set ns.a = [ns.a, ns.a] %}{% endfor %}{{ ns.a | tojson }}', /more than 5000000 evaluation steps|string of more than/],
    ['two exponential structures compared', '{% set ns = namespace(a=[1], b=[1]) %}{% for i in range(60) %}{% set ns.a = [ns.a, ns.a] %}{% set ns.b = [ns.b, ns.b] %}{% endfor %}{{ ns.a == ns.b }}', /more than 5000000 evaluation steps/],
    ['a filter over a long list in a long loop', '{% set l = range(100000) %}{% for i in range(100000) %}{{ l | sum }}{% endfor %}', /evaluation steps|more than 64000000 characters|string of more than/],
    ['many large strings', '{% set s = "x" * 3000000 %}{% for i in range(100) %}{{ s | upper }}{% endfor %}', /characters/],
    ['two self-containing lists compared', '{% set a = [] %}{% set b = [] %}{% set _ = a.append(a) %}{% set _ = b.append(b) %}{{ a == b }}', /nested too deeply|evaluation steps/],
    ['a long string split into pieces', "{{ ('x,' * 1000000).split(',') | length }}", /split\(\) of 100001 items is over the limit/],
    ['a huge indent', "{{ 'a\\nb' | indent(500000000) }}", /string of more than/],
    ['a long string walked as a list', "{% for c in 'x' * 1000000 %}{% endfor %}", /a string walked as a list of 1000000 items/],
    ['deep nesting', `{{ ${'('.repeat(5000)}1${')'.repeat(5000)} }}`, /nested too deeply|nests more than/],
    ['a long run of whitespace lexes in linear time', `${' '.repeat(512 * 1024)}{{ nope }}`, /'nope' is undefined/],
  ])('%s', (_name, t, limit) => {
    const r = run(t);
    assertInert(r);
    expect(r.err).toMatch(limit);
  });
});
